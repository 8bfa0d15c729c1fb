// Queries to the nameservers over the last 30 s, and how many of them timed out: what /healthz
// reads to say `degraded` while lookups are timing out. Three 10 s buckets, so the window slides
// without keeping one record per query.

/** The rule: in the last 30 s at least 5 queries timed out, and they were at least 20% of all queries. */
export const DNS_DEGRADED = { windowMs: 30_000, minTimeouts: 5, minShare: 0.2 } as const;

const BUCKETS = 3;

export class DnsWindow {
  private readonly bucketMs = DNS_DEGRADED.windowMs / BUCKETS;
  private readonly buckets = Array.from({ length: BUCKETS }, () => ({ start: -Infinity, queries: 0, timeouts: 0 }));

  constructor(private readonly now: () => number = () => performance.now()) {}

  record(timedOut: boolean): void {
    const bucket = this.current();
    bucket.queries++;
    if (timedOut) bucket.timeouts++;
  }

  /** Queries and timeouts in the window. */
  totals(): { queries: number; timeouts: number } {
    const since = this.now() - DNS_DEGRADED.windowMs;
    let queries = 0;
    let timeouts = 0;
    for (const b of this.buckets) {
      if (b.start <= since) continue;
      queries += b.queries;
      timeouts += b.timeouts;
    }
    return { queries, timeouts };
  }

  get degraded(): boolean {
    const { queries, timeouts } = this.totals();
    return timeouts >= DNS_DEGRADED.minTimeouts && timeouts >= DNS_DEGRADED.minShare * queries;
  }

  private current(): { start: number; queries: number; timeouts: number } {
    const now = this.now();
    const start = now - (now % this.bucketMs);
    const bucket = this.buckets[Math.floor(now / this.bucketMs) % BUCKETS]!;
    if (bucket.start !== start) Object.assign(bucket, { start, queries: 0, timeouts: 0 });
    return bucket;
  }
}
