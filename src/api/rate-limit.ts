// One budget per client IP over the two data endpoints together (docs/SPEC.md "Limits": 20 requests
// per 10 s, shared by both data paths of paths.ts; /component.js, /openapi.yaml and / are not
// counted). A client is its IPv4 address or its IPv6 /64 (client-key.ts); an IPv6 client's /48
// has a second, larger budget over all its /64s (RATE_LIMIT_IPV6_48_MAX). The stores decide;
// this sets the headers and raises RateLimited. Only these exact paths reach the two operations
// (api/router.ts answers a trailing slash 404), so counting by path misses none of them.

import type { Next, ParameterizedContext } from 'koa';
import { RateLimited } from '../errors.js';
import type { RateDecision, RateLimitStore } from '../store/rate-limit.js';
import { DATA_PATHS } from '../paths.js';
import type { ProxyTrust } from '../trusted-proxies.js';
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

/** The budgets a request is counted in: its client's, and for IPv6 its /48's (null: none). */
export interface RateLimitStores {
  client: RateLimitStore;
  site: RateLimitStore | null;
}

/**
 * Counts each request to a data path once, stored answers included (they come after it). A
 * request its /64 allows is counted in its /48 too; the headers are those of the budget that
 * decided (the /48's when it refuses).
 */
export function rateLimit(stores: RateLimitStores | null, trust: ProxyTrust, onLimited: (path: string) => void = () => {}) {
  return async function rateLimit(ctx: ParameterizedContext<{ clientIp?: string }>, next: Next): Promise<void> {
    const client = requestClient(ctx.req, trust);
    ctx.state.clientIp = client.ip;
    if (stores === null || !DATA_PATHS.has(ctx.path)) return next();
    let decision = await stores.client.hit(client.key);
    if (decision.allowed && client.site !== null && stores.site !== null) {
      const site = await stores.site.hit(client.site);
      if (!site.allowed) decision = site;
    }
    setHeaders(ctx.res, rateLimitHeaders(decision));
    if (!decision.allowed) {
      onLimited(ctx.path);
      throw new RateLimited(decision.retryAfterSeconds);
    }
    return next();
  };
}
