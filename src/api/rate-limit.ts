// One budget per client IP over the two data endpoints together (docs/SPEC.md "Limits": 20 requests
// per 10 s, shared by /v1/metadata and /v1/cors-proxy; /component.js, /openapi.yaml and / are
// not counted). A client is its IPv4 address or its IPv6 /64 (client-key.ts). The store decides;
// this sets the headers and raises RateLimited. Only these exact paths reach the two operations
// (api/router.ts answers `/v1/metadata/` 404), so counting by path misses none of them.

import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { RateLimited } from '../errors.js';
import type { RateDecision, RateLimitStore } from '../store/rate-limit.js';
import { DATA_PATHS } from '../routes.js';
import { requestClient } from './client-ip.js';

/** The headers every counted request carries, allowed or not (docs/SPEC.md "Limits"). */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
  };
}

/**
 * Decisions already taken for a request before Koa saw it (the fast path counts a cached hit and
 * hands a refused one over to be answered here): counted once, answered by the one error path.
 */
const counted = new WeakMap<IncomingMessage, RateDecision>();

export function handOverCounted(req: IncomingMessage, decision: RateDecision): void {
  counted.set(req, decision);
}

export function rateLimit(store: RateLimitStore | null, onLimited: (path: string) => void = () => {}) {
  return async function rateLimit(ctx: Context, next: Next): Promise<void> {
    const client = requestClient(ctx.req, ctx.app.proxy);
    ctx.state.clientIp = client.ip;
    if (store === null || !DATA_PATHS.has(ctx.path)) return next();
    const decision = counted.get(ctx.req) ?? (await store.hit(client.key));
    ctx.set(rateLimitHeaders(decision));
    if (!decision.allowed) {
      onLimited(ctx.path);
      throw new RateLimited(decision.retryAfterSeconds);
    }
    return next();
  };
}
