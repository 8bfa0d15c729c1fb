// The Server-Timing header of the metadata endpoint (W3C Server Timing): the cache outcome always, and on
// a miss the milliseconds spent on each step, e.g.
//   cache;desc=miss, dns;dur=1.2, connect;dur=0.8, fetch;dur=35.1, scan;dur=2.3, enrich;dur=120.4
// Browsers read it in devtools; scripts read it because CORS exposes it (api/cors.ts).

import type { CacheOutcome, RequestTiming, TimingStep } from '../metadata/service-types.js';

/** What every stored answer is sent with: built once, not per request. */
export const HIT_SERVER_TIMING = 'cache;desc=hit';

export class ServerTiming implements RequestTiming {
  cache: CacheOutcome = 'miss';
  private steps = '';

  step(name: TimingStep, ms: number | null | undefined): void {
    if (ms === null || ms === undefined) return;
    this.steps += `, ${name};dur=${Math.round(ms * 10) / 10}`;
  }

  header(): string {
    return `cache;desc=${this.cache}${this.steps}`;
  }
}
