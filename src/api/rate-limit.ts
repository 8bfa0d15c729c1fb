// One budget per client IP over the two data endpoints together (SPEC.md "Limits": 20 requests
// per 10 s, shared by /v1/metadata and /v1/cors-proxy; /component.js, /openapi.yaml and / are
// not counted). The store decides; this sets the headers and raises RateLimited.

import type { Context, Next } from 'koa';
import { RateLimited } from '../errors.js';
import type { RateLimitStore } from '../store/rate-limit.js';
import { clientIp } from './client-ip.js';

export const LIMITED_PATHS: ReadonlySet<string> = new Set(['/v1/metadata', '/v1/cors-proxy']);

export function rateLimit(store: RateLimitStore | null, onLimited: (path: string) => void = () => {}) {
  return async function rateLimit(ctx: Context, next: Next): Promise<void> {
    ctx.state.clientIp = clientIp(ctx);
    if (store === null || !LIMITED_PATHS.has(ctx.path)) return next();
    const decision = await store.hit(ctx.state.clientIp);
    ctx.set({
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.resetSeconds),
    });
    if (!decision.allowed) {
      onLimited(ctx.path);
      throw new RateLimited(decision.retryAfterSeconds);
    }
    return next();
  };
}
