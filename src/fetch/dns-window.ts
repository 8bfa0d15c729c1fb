// Queries to the nameservers over the last 20 s, and how many of them the nameservers did not
// answer: timed out, or could not reach a nameserver at all (connection refused: nothing listens
// at DNS_SERVERS). What /healthz reads to say `degraded`, and what tells a silent nameserver from a
// silent name (resolver.ts). Three 10 s buckets, so the window slides without keeping one record
// per query.

/** The rule: in the last 20 s at least 5 queries went unanswered, and they were at least 20% of all queries. */
export const DNS_DEGRADED = { windowMs: 20_000, minTimeouts: 5, minShare: 0.2 } as const;

const BUCKETS = 3;

export class DnsWindow {
  private readonly bucketMs = DNS_DEGRADED.windowMs / BUCKETS;
  private readonly buckets = Array.from({ length: BUCKETS }, () => ({ start: -Infinity, queries: 0, timeouts: 0, unreachable: 0 }));

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** One query: `timedOut` past DNS_TIMEOUT_MS, or `unreachable`: no nameserver could be reached. */
  record(timedOut: boolean, unreachable = false): void {
    const bucket = this.current();
    bucket.queries++;
    if (timedOut) bucket.timeouts++;
    if (unreachable) bucket.unreachable++;
  }

  /** Queries, timeouts and unreachable nameservers in the window. */
  totals(): { queries: number; timeouts: number; unreachable: number } {
    const since = this.now() - DNS_DEGRADED.windowMs;
    const sum = { queries: 0, timeouts: 0, unreachable: 0 };
    for (const b of this.buckets) {
      if (b.start <= since) continue;
      sum.queries += b.queries;
      sum.timeouts += b.timeouts;
      sum.unreachable += b.unreachable;
    }
    return sum;
  }

  /**
   * True while the window is degraded and no query in it was answered at all (not even with
   * NXDOMAIN): then it is the nameservers that are silent, not a few names. While any answer
   * comes, a timeout is the name's own (a zone that never answers), not the resolver's.
   */
  get nameserversSilent(): boolean {
    const { queries, timeouts, unreachable } = this.totals();
    return this.degraded && queries === timeouts + unreachable;
  }

  get degraded(): boolean {
    const { queries, timeouts, unreachable } = this.totals();
    const unanswered = timeouts + unreachable;
    return unanswered >= DNS_DEGRADED.minTimeouts && unanswered >= DNS_DEGRADED.minShare * queries;
  }

  private current(): { start: number; queries: number; timeouts: number; unreachable: number } {
    const now = this.now();
    const start = now - (now % this.bucketMs);
    const bucket = this.buckets[Math.floor(now / this.bucketMs) % BUCKETS]!;
    if (bucket.start !== start) Object.assign(bucket, { start, queries: 0, timeouts: 0, unreachable: 0 });
    return bucket;
  }
}
