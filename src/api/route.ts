// What the route table (api/router.ts) found for a request, kept on the request for the steps
// every request takes (the log, the error boundary): they read it, never the path.

import type { Context, Next } from 'koa';
import type { Operation } from 'openapi-backend';
import type { ErrorSurface } from '../errors.js';

/** One step of a route's chain: a Koa middleware. */
export type Step = (ctx: Context, next: Next) => Promise<void> | void;

export interface Route {
  /** The operation of openapi.yaml the request names; null when none (a 404, or a 405 on its path). */
  readonly operation: Operation | null;
  /** The log's and the metrics' label: the operation's path when it has no parameter, else "other" (bounded). */
  readonly label: string;
  /** The shape of its error bodies (docs/SPEC.md "Errors"). */
  readonly surface: ErrorSurface;
  /** What answers it, in order: the door past capacity, rate limit, cached answer, validation, handler, as the table declares. */
  readonly steps: Step[];
}

/** Before any route is matched (no request gets there: matching is the first middleware). */
const UNMATCHED: Route = { operation: null, label: 'other', surface: 'metadata', steps: [] };

export function routeOf(ctx: Context): Route {
  return (ctx.state.route as Route | undefined) ?? UNMATCHED;
}
