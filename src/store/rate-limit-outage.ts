// The rate limit of a fleet whose shared store cannot be reached. Each instance alone would grant
// every client the whole budget, so N instances would publish N times the limit for as long as
// the outage lasts. RATE_LIMIT_OUTAGE chooses what an instance does instead:
//   - `share` (the default): it enforces its share of the limit, the limit divided by the live
//     instances it last saw in the store (store/fleet.ts), at least one request. A load balancer
//     that spreads a client's requests over the fleet then lets about the published limit through
//     in all; what the client already spent on this instance before the outage still counts.
//   - `closed`: every request under the limit is refused (429) until the store is back; no
//     client gets more than the limit, and nobody gets anything.
//   - `local`: each instance grants the whole limit (the behaviour before this setting); a fleet
//     of N lets up to N times the limit through.
// While the store answers, this instance also counts what it allows in memory, so a decision
// made alone knows what the client spent here. When the store is back, what was allowed or
// blocked alone is added to it, and after the store lost its data (a restart without
// persistence) everything this instance still counts is: spent budgets are not forgotten.

import type { OutagePolicy } from '../config.js';
import type { Failover } from './failover.js';
import { limited, MemoryRateLimitStore, type MemoryBounds, type RateDecision, type RateLimitOptions, type RateLimitStore } from './rate-limit.js';
import type { RedisRateLimitStore } from './rate-limit-redis.js';

export type { OutagePolicy };

/** The clients sent back to the store at once when it returns. */
const REJOIN_BATCH = 100;

export class OutageSafeRateLimitStore implements RateLimitStore {
  /** This instance's own count: a mirror while the store answers, the decider while it does not. */
  readonly local: MemoryRateLimitStore;
  /** When this instance first decided alone since it last synchronised with the store (ms). */
  private aloneSince: number | null = null;
  private readonly now: () => number;

  constructor(
    private readonly shared: RedisRateLimitStore,
    private readonly opts: RateLimitOptions,
    private readonly failover: Failover,
    private readonly fleet: { readonly size: number },
    private readonly policy: OutagePolicy,
    bounds: Omit<MemoryBounds, 'limit'> = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.local = new MemoryRateLimitStore(opts, { ...bounds, limit: () => this.aloneLimit() });
  }

  /** What one client may make here in a window while the store cannot be reached. */
  aloneLimit(): number {
    if (this.policy === 'local') return this.opts.max;
    return Math.max(1, Math.floor(this.opts.max / this.fleet.size));
  }

  hit(id: string): Promise<RateDecision> {
    return this.failover.run(
      async () => this.mirror(id, await this.shared.hit(id)),
      async () => this.decideAlone(id),
    );
  }

  /**
   * Sends what was decided alone to the store: since the outage began, or everything still in
   * the window when the store lost its data (`all`). Runs when the store answers again.
   */
  async rejoin(all = false): Promise<void> {
    const since = all ? 0 : this.aloneSince;
    this.aloneSince = null;
    if (since === null) return;
    let batch: Promise<void>[] = [];
    for (const spent of this.local.spentSince(since)) {
      batch.push(this.shared.record(spent));
      if (batch.length >= REJOIN_BATCH) {
        await Promise.allSettled(batch);
        batch = [];
      }
    }
    await Promise.allSettled(batch);
  }

  close(): void {
    this.shared.close();
    this.local.close();
  }

  private mirror(id: string, decision: RateDecision): RateDecision {
    if (decision.allowed) this.local.record(id, this.now());
    else this.local.block(id, decision.resetSeconds * 1000);
    return decision;
  }

  private decideAlone(id: string): Promise<RateDecision> {
    const now = this.now();
    this.aloneSince ??= now;
    // Refused, and not remembered as a block: the client is not held back once the store is back.
    if (this.policy === 'closed') return Promise.resolve(limited(this.opts, now + this.opts.blockMs, now));
    return this.local.hit(id);
  }
}
