// Every path pays: each request, whatever its path (static files, /healthz and /openapi.yaml
// included), is counted against its client's requests in flight until its response has ended
// (a proxied image until its last byte). Past MAX_REQUESTS_PER_CLIENT the client is answered
// 429 at once, before any work is done for it. A bounded counter: clients are kept only while
// they have something in flight. The spec's 20 requests per 10 s (rate-limit.ts) still counts
// the two data endpoints only.

import type { Next, ParameterizedContext } from 'koa';
import { RateLimited } from '../errors.js';
import type { ClientState } from './rate-limit.js';

/** A request over the cap is told to come back in a second: requests in flight end quickly or stream. */
const RETRY_AFTER_SECONDS = 1;

export function clientConcurrency(limit: number, onRefused: () => void = () => {}) {
  const inFlight = new Map<string, number>();
  const release = (key: string) => {
    const left = inFlight.get(key)! - 1;
    if (left === 0) inFlight.delete(key);
    else inFlight.set(key, left);
  };
  return async function clientConcurrency(ctx: ParameterizedContext<ClientState>, next: Next): Promise<void> {
    if (limit === 0) return next();
    // identifyClient runs before it (src/app.ts).
    const { key } = ctx.state.client!;
    const held = inFlight.get(key) ?? 0;
    if (held >= limit) {
      onRefused();
      throw new RateLimited(RETRY_AFTER_SECONDS, 'Too many requests of this client at once');
    }
    inFlight.set(key, held + 1);
    // 'close' comes once, when the response has ended or its connection was cut: a streamed
    // body is counted to its end, not to the moment the handler returned.
    ctx.res.once('close', () => release(key));
    return next();
  };
}
