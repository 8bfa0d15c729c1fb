// One budget per client IP over the two data endpoints together (docs/SPEC.md "Limits": 20 requests
// per 10 s, shared by both data operations; /component.js, /openapi.yaml and / are not
// counted). A client is its IPv4 address or its IPv6 /64 (client-key.ts); an IPv6 client's /48
// has a second, larger budget over all its /64s (RATE_LIMIT_IPV6_48_MAX). The stores decide;
// this sets the headers and raises RateLimited. Which requests are counted is the route table's
// to say (api/router.ts): the two operations' chains, and a wrong method on their paths.

import type { Next, ParameterizedContext } from 'koa';
import { RateLimited } from '../errors.js';
import type { RateDecision, RateLimitStore } from '../store/rate-limit.js';
import type { ProxyTrust } from '../trusted-proxies.js';
import type { Client } from '../client-key.js';
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
 * Names the client of every request (ctx.state.client, and its IP in ctx.state.clientIp for the
 * log and the handlers), once, whatever the route.
 */
export function identifyClient(trust: ProxyTrust) {
  return function identifyClient(ctx: ParameterizedContext<ClientState>, next: Next): Promise<void> {
    const client = requestClient(ctx.req, trust);
    ctx.state.client = client;
    ctx.state.clientIp = client.ip;
    return next();
  };
}

export interface ClientState {
  client?: Client;
  clientIp?: string;
}

/**
 * Counts a request of the client identifyClient named, stored answers included (they come after
 * it in their chain). A request its /64 allows is counted in its /48 too; the headers are those of
 * the budget that decided (the /48's when it refuses). `onLimited` hears each refusal, with its client.
 */
export function rateLimit(stores: RateLimitStores | null, onLimited: (ctx: ParameterizedContext, client: Client) => void = () => {}) {
  return async function rateLimit(ctx: ParameterizedContext<ClientState>, next: Next): Promise<void> {
    if (stores === null) return next();
    // identifyClient runs before every route's chain (src/app.ts).
    const client = ctx.state.client!;
    let decision = await stores.client.hit(client.key);
    if (decision.allowed && client.site !== null && stores.site !== null) {
      const site = await stores.site.hit(client.site);
      if (!site.allowed) decision = site;
    }
    setHeaders(ctx.res, rateLimitHeaders(decision));
    if (!decision.allowed) {
      onLimited(ctx, client);
      throw new RateLimited(decision.retryAfterSeconds);
    }
    return next();
  };
}
