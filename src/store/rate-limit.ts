// Per-client rate limiting with the spec's semantics (SPEC.md "Limits"): `max` requests per
// window per client, and the request that exceeds it blocks the client for `blockMs` from that
// moment, whatever the window had left. The Redis store counts with koa-ratelimit's Redis driver
// (a sliding window via async-ratelimiter); the memory store keeps koa-ratelimit's memory
// semantics (a fixed window from the first hit) but counts synchronously, because the cached-hit
// fast path (api/fast-path.ts) decides before Koa runs and the driver is async only and builds an
// object per request. The block and the fallback are this thin layer, because neither driver
// blocks from the exceeding request, the memory Map never evicts, and an unreachable Redis must
// not turn into a 500 (PITFALLS.md "koa-ratelimit 6").

import type { Redis } from 'ioredis';
import RedisLimiter from 'koa-ratelimit/limiter/redis.js';
import type { Failover } from './failover.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left after this one. */
  remaining: number;
  /** When the window (or the block) ends, epoch seconds. */
  resetSeconds: number;
  /** Whole seconds until the block ends; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimitStore {
  /** Counts one request of the client; the memory store answers at once, Redis by a promise. */
  hit(clientId: string): RateDecision | Promise<RateDecision>;
  close(): void;
}

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  blockMs: number;
}

/** The Redis store's decision: the same rules as MemoryRateLimitStore.hit, over async I/O. */
async function decide(
  id: string,
  opts: RateLimitOptions,
  counter: (id: string) => Promise<{ remaining: number; reset: number }>,
  blocks: { get(id: string): Promise<number | null>; set(id: string, untilMs: number): Promise<void> },
): Promise<RateDecision> {
  const now = Date.now();
  const blockedUntil = await blocks.get(id);
  if (blockedUntil !== null && blockedUntil > now) return limited(opts, blockedUntil, now);
  const state = await counter(id);
  if (state.remaining > 0) return allowed(opts, state.remaining - 1, state.reset);
  const until = now + opts.blockMs;
  await blocks.set(id, until);
  return limited(opts, until, now);
}

function allowed(opts: RateLimitOptions, remaining: number, resetSeconds: number): RateDecision {
  return { allowed: true, limit: opts.max, remaining, resetSeconds: Math.ceil(resetSeconds), retryAfterSeconds: 0 };
}

function limited(opts: RateLimitOptions, untilMs: number, now: number): RateDecision {
  return {
    allowed: false,
    limit: opts.max,
    remaining: 0,
    resetSeconds: Math.ceil(untilMs / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((untilMs - now) / 1000)),
  };
}

interface WindowState {
  /** When the window ends, epoch ms. */
  resetMs: number;
  /** Requests the window still allows. */
  remaining: number;
}

/**
 * In-process store: koa-ratelimit's memory window (fixed, from the client's first hit), counted
 * synchronously. Expired windows and blocks are swept every window, so a flood of distinct
 * addresses leaves nothing behind once its window is over (issue 2).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly windows = new Map<string, WindowState>();
  readonly blocks = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: RateLimitOptions) {
    this.timer = setInterval(() => this.sweep(), Math.max(1000, Math.min(opts.windowMs, opts.blockMs)));
    this.timer.unref();
  }

  hit(id: string): RateDecision {
    const { windows, blocks, opts } = this;
    const now = Date.now();
    const blockedUntil = blocks.get(id);
    if (blockedUntil !== undefined && blockedUntil > now) return limited(opts, blockedUntil, now);
    let window = windows.get(id);
    if (window === undefined || window.resetMs < now) {
      window = { resetMs: now + opts.windowMs, remaining: opts.max };
      windows.set(id, window);
    }
    if (window.remaining > 0) {
      window.remaining -= 1;
      return allowed(opts, window.remaining, window.resetMs / 1000);
    }
    const until = now + opts.blockMs;
    blocks.set(id, until);
    return limited(opts, until, now);
  }

  /** Drops every window and block that has ended. */
  sweep(now = Date.now()): void {
    for (const [key, state] of this.windows) if (state.resetMs <= now) this.windows.delete(key);
    for (const [key, until] of this.blocks) if (until <= now) this.blocks.delete(key);
  }

  get size(): number {
    return this.windows.size + this.blocks.size;
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** Shared store: every instance on one Redis shares one budget per client (DESIGN "Scaling out"). */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly limiter: RedisLimiter;
  private readonly namespace: string;

  /** `keyPrefix` (REDIS_KEY_PREFIX) keeps deployments that share one Redis apart. */
  constructor(
    private readonly redis: Redis,
    private readonly opts: RateLimitOptions,
    keyPrefix: string,
  ) {
    this.namespace = `${keyPrefix}rl`;
    this.limiter = new RedisLimiter({ db: redis, max: opts.max, duration: opts.windowMs, namespace: this.namespace });
  }

  hit(id: string): Promise<RateDecision> {
    return decide(id, this.opts, (id) => this.limiter.get({ id }), {
      get: async (id) => {
        const until = await this.redis.get(`${this.namespace}:block:${id}`);
        return until === null ? null : Number(until);
      },
      set: async (id, until) => {
        await this.redis.set(`${this.namespace}:block:${id}`, String(until), 'PX', Math.max(1, until - Date.now()));
      },
    });
  }

  close(): void {}
}

/** Redis first; memory while it fails (store/failover.ts), counted on the same window settings. */
export class FallbackRateLimitStore implements RateLimitStore {
  constructor(
    private readonly primary: RateLimitStore,
    private readonly fallback: RateLimitStore,
    private readonly failover: Failover,
  ) {}

  hit(id: string): Promise<RateDecision> {
    return this.failover.run(
      async () => this.primary.hit(id),
      async () => this.fallback.hit(id),
    );
  }

  close(): void {
    this.primary.close();
    this.fallback.close();
  }
}
