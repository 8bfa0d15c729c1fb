// One budget per client IP over the two data endpoints together (docs/SPEC.md "Limits": 20 requests
// per 10 s, shared by both data paths of paths.ts; /component.js, /openapi.yaml and / are not
// counted). A client is its IPv4 address or its IPv6 /64 (client-key.ts). The store decides; this
// sets the headers and raises RateLimited. Only these exact paths reach the two operations
// (api/router.ts answers a trailing slash 404), so counting by path misses none of them.

import type { Next, ParameterizedContext } from 'koa';
import { RateLimited } from '../errors.js';
import type { RateDecision, RateLimitStore } from '../store/rate-limit.js';
import { DATA_PATHS } from '../paths.js';
import { requestClient } from './client-ip.js';
import { setHeaders } from './set-headers.js';

/** The headers every counted request carries, allowed or not (docs/SPEC.md "Limits"). */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
  };
}

/** Counts each request to a data path once, stored answers included (they come after it). */
export function rateLimit(store: RateLimitStore | null, onLimited: (path: string) => void = () => {}) {
  return async function rateLimit(ctx: ParameterizedContext<{ clientIp?: string }>, next: Next): Promise<void> {
    const client = requestClient(ctx.req, ctx.app.proxy);
    ctx.state.clientIp = client.ip;
    if (store === null || !DATA_PATHS.has(ctx.path)) return next();
    const decision = await store.hit(client.key);
    setHeaders(ctx.res, rateLimitHeaders(decision));
    if (!decision.allowed) {
      onLimited(ctx.path);
      throw new RateLimited(decision.retryAfterSeconds);
    }
    return next();
  };
}
