// A request that carries our own Via came from a LinkPeek instance: answering it would let a
// caller point the service at itself and make it fetch itself in a loop.

import type { Context, Next } from 'koa';
import { FetchLoop } from '../errors.js';
import { carriesOurVia } from '../fetch/policy.js';
import { API_PREFIX } from '../paths.js';

export function refuseFetchLoops(ctx: Context, next: Next): Promise<void> {
  const via = ctx.headers.via;
  // Thrown inside the chain's promise, as from an async middleware: errorBoundary answers it.
  if (via !== undefined && ctx.path.startsWith(API_PREFIX) && carriesOurVia(via)) return Promise.reject(new FetchLoop());
  return next();
}
