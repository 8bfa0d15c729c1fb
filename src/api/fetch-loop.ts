// A request that carries our own Via came from a LinkPeek instance: answering it would let a
// caller point the service at itself and make it fetch itself in a loop. A step of the chains of
// the versioned API's paths (api/router.ts).

import type { Context, Next } from 'koa';
import { FetchLoop } from '../errors.js';
import { carriesOurVia } from '../fetch/policy.js';

export function refuseFetchLoops(ctx: Context, next: Next): Promise<void> {
  const via = ctx.headers.via;
  // Thrown inside the chain's promise, as from an async middleware: errorBoundary answers it.
  if (via !== undefined && carriesOurVia(via)) return Promise.reject(new FetchLoop());
  return next();
}
