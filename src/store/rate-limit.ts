// Per-client rate limiting (docs/SPEC.md "Limits": 20 requests per 10 s, then a 10 s block), one rule
// for every store:
//   - a sliding window: a request is allowed while the client made fewer than `max` allowed
//     requests in the `windowMs` before it. Each request counts for exactly `windowMs` after it
//     was made, so no window edge lets 2 × max through (a fixed window does: max just before its
//     end and max again just after);
//   - the request past the limit blocks the client for `blockMs` from that moment, whatever the
//     window had left; requests during a block are refused and not counted.
// The memory store is here; the Redis store (rate-limit-redis.ts) runs the same rule as one
// script. While Redis cannot be reached, the memory store decides under the outage policy
// (rate-limit-outage.ts) rather than a 500.

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /**
   * Epoch seconds: while allowed, when the oldest request in the window leaves it (the budget
   * grows again); while blocked, when the block ends.
   */
  resetSeconds: number;
  /** Whole seconds until the block ends; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimitStore {
  /** Counts one request of the client. */
  hit(clientId: string): Promise<RateDecision>;
  close(): void;
}

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  blockMs: number;
  /** The clock, epoch ms; tests drive their own. Date.now by default. */
  now?: () => number;
}

export function allowed(opts: RateLimitOptions, remaining: number, resetMs: number): RateDecision {
  return { allowed: true, limit: opts.max, remaining, resetSeconds: Math.ceil(resetMs / 1000), retryAfterSeconds: 0 };
}

export function limited(opts: RateLimitOptions, untilMs: number, now: number): RateDecision {
  return {
    allowed: false,
    limit: opts.max,
    remaining: 0,
    resetSeconds: Math.ceil(untilMs / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((untilMs - now) / 1000)),
  };
}

export interface MemoryBounds {
  /** Clients tracked at most; 100,000 by default. */
  maxClients?: number;
  /** Real ms between sweeps; every window (at least a second) by default. */
  sweepEveryMs?: number;
  /**
   * The requests a client may make in a window, asked at each decision; `max` by default. The
   * outage policy lowers it to this instance's share of the fleet's limit.
   */
  limit?: () => number;
}

/** One client's requests counted by one store, to be added to another (rate-limit-redis.ts). */
export interface SpentBudget {
  clientId: string;
  /** Allowed requests still in the window, epoch ms, oldest first. */
  times: number[];
  /** When the client's block ends, if it is blocked. */
  blockedUntil?: number;
}

/**
 * In-process store. Each client's allowed requests of the last window are kept as their times,
 * oldest first, at most `max` of them. Memory stays bounded two ways: a sweep every window drops
 * every client whose requests and block are over, and at most `maxClients` clients are tracked,
 * the longest-tracked one forgotten first. Forgetting a client only gives that client a fresh
 * budget, and filling the table takes `maxClients` distinct clients, each with a budget of its
 * own anyway.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** Each client's allowed requests still in the window, as epoch ms, oldest first. */
  readonly logs = new Map<string, Log>();
  /** Blocked clients: when the block ends, epoch ms. */
  readonly blocks = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxClients: number;
  private readonly limit: () => number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly opts: RateLimitOptions,
    bounds: MemoryBounds = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.maxClients = bounds.maxClients ?? 100_000;
    this.limit = bounds.limit ?? (() => opts.max);
    const sweepEveryMs = bounds.sweepEveryMs ?? Math.max(1000, Math.min(opts.windowMs, opts.blockMs));
    this.timer = setInterval(() => this.sweep(), sweepEveryMs);
    this.timer.unref();
  }

  hit(id: string): Promise<RateDecision> {
    return Promise.resolve(this.decide(id));
  }

  private decide(id: string): RateDecision {
    const { logs, blocks, opts } = this;
    const now = this.now();
    const blockedUntil = blocks.get(id);
    if (blockedUntil !== undefined) {
      if (blockedUntil > now) return limited(opts, blockedUntil, now);
      blocks.delete(id);
    }
    const max = this.limit();
    const log = logs.get(id);
    if (log === undefined && max > 0) {
      // A literal of one holds one number; an empty array grows to room for 17 on its first push,
      // and a flood of distinct clients is mostly clients of one request.
      track(logs, id, new Log([now]), this.maxClients);
      return allowed(opts, max - 1, now + opts.windowMs);
    }
    const inWindow = log?.countAfter(now - opts.windowMs) ?? 0;
    if (log && inWindow < max) {
      log.add(now);
      return allowed(opts, max - inWindow - 1, log.oldest + opts.windowMs);
    }
    const until = now + opts.blockMs;
    track(blocks, id, until, this.maxClients);
    return limited(opts, until, now);
  }

  /**
   * Counts a request another store allowed (the shared one, while it answers), so that this
   * store, deciding alone during an outage, knows what the client already spent here.
   */
  record(id: string, at: number): void {
    const log = this.logs.get(id);
    if (log) log.add(at);
    else track(this.logs, id, new Log([at]), this.maxClients);
  }

  /** Blocks a client until `until` (epoch ms), as another store decided. */
  block(id: string, until: number): void {
    if ((this.blocks.get(id) ?? 0) < until) track(this.blocks, id, until, this.maxClients);
  }

  /** Every client's requests of the window made at or after `since`, and its block if any. */
  *spentSince(since: number, now = this.now()): Generator<SpentBudget> {
    const from = Math.max(since, now - this.opts.windowMs + 1);
    const ids = new Set([...this.logs.keys(), ...this.blocks.keys()]);
    for (const clientId of ids) {
      const times = this.logs.get(clientId)?.timesFrom(from) ?? [];
      const until = this.blocks.get(clientId);
      const blockedUntil = until !== undefined && until > now ? until : undefined;
      if (times.length > 0 || blockedUntil !== undefined) yield { clientId, times, ...(blockedUntil === undefined ? {} : { blockedUntil }) };
    }
  }

  /** Drops every client whose window and block are over. */
  sweep(now = this.now()): void {
    const since = now - this.opts.windowMs;
    for (const [key, log] of this.logs) if (log.newest <= since) this.logs.delete(key);
    for (const [key, until] of this.blocks) if (until <= now) this.blocks.delete(key);
  }

  /** Clients tracked: windows plus blocks. */
  get size(): number {
    return this.logs.size + this.blocks.size;
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * One client's allowed requests: their times, oldest first; those before `first` have left the
 * window. They are cut off once they are half the log, so a request moves one number on average
 * rather than every time the window holds (a large RATE_LIMIT_MAX makes long logs).
 */
class Log {
  private first = 0;
  constructor(private readonly times: number[]) {}

  /** How many requests are in the window after `since`, forgetting the others. */
  countAfter(since: number): number {
    const { times } = this;
    let first = this.first;
    while (first < times.length && times[first]! <= since) first++;
    if (first > 0 && first * 2 >= times.length) {
      times.copyWithin(0, first);
      times.length -= first;
      first = 0;
    }
    this.first = first;
    return times.length - first;
  }

  add(time: number): void {
    this.times.push(time);
  }

  /** The times at or after `from`, oldest first. */
  timesFrom(from: number): number[] {
    return this.times.slice(this.first).filter((time) => time >= from);
  }

  get oldest(): number {
    return this.times[this.first]!;
  }

  get newest(): number {
    return this.times[this.times.length - 1]!;
  }

  /** Times kept, the forgotten ones not yet cut off included. */
  get length(): number {
    return this.times.length;
  }
}

/** Adds a client to a table that holds at most `cap`, forgetting the longest-tracked one. */
function track<V>(table: Map<string, V>, id: string, value: V, cap: number): void {
  if (!table.has(id) && table.size >= cap) table.delete(table.keys().next().value!);
  table.set(id, value);
}
