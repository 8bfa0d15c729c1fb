// One budget per client IP over the two data endpoints together (SPEC.md "Limits": 20 requests
// per 10 s, shared by /v1/metadata and /v1/cors-proxy; /component.js, /openapi.yaml and / are
// not counted). The store decides; this sets the headers and raises RateLimited.

import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { RateLimited } from '../errors.js';
import type { RateDecision, RateLimitStore } from '../store/rate-limit.js';
import { DATA_PATHS } from '../routes.js';
import { clientIp } from './client-ip.js';

/** The headers every counted request carries, allowed or not (SPEC.md "Limits"). */
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
    ctx.state.clientIp = clientIp(ctx.req, ctx.app.proxy);
    if (store === null || !DATA_PATHS.has(ctx.path)) return next();
    const decision = counted.get(ctx.req) ?? (await store.hit(ctx.state.clientIp));
    ctx.set(rateLimitHeaders(decision));
    if (!decision.allowed) {
      onLimited(ctx.path);
      throw new RateLimited(decision.retryAfterSeconds);
    }
    return next();
  };
}
