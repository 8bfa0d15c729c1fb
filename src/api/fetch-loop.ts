// A request that carries our own Via came from a LinkPeek instance: answering it would let a
// caller point the service at itself and make it fetch itself in a loop.

import type { Context, Next } from 'koa';
import { FetchLoop } from '../errors.js';
import { carriesOurVia } from '../fetch/policy.js';
import { API_PREFIX } from '../paths.js';

export async function refuseFetchLoops(ctx: Context, next: Next): Promise<void> {
  if (ctx.path.startsWith(API_PREFIX) && carriesOurVia(ctx.headers.via)) throw new FetchLoop();
  await next();
}
