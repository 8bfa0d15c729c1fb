// The two counting drivers of koa-ratelimit, used directly by src/store/rate-limit.ts (the
// middleware is ours: see that file for why). The package ships no types for these paths.
declare module 'koa-ratelimit/limiter/memory.js' {
  interface LimitState {
    id: string;
    /** Epoch seconds (fractional) when the fixed window ends. */
    reset: number;
    remaining: number;
    total: number;
  }
  export default class MemoryLimiter {
    constructor(opts: { id: string; db: Map<string, LimitState>; max: number; duration: number; namespace?: string });
    get(): Promise<LimitState>;
  }
}

declare module 'koa-ratelimit/limiter/redis.js' {
  import type { Redis } from 'ioredis';
  export default class RedisLimiter {
    constructor(opts: { db: Redis; max: number; duration: number; namespace?: string });
    /** remaining > 0: allowed (this call counted); reset in epoch seconds. */
    get(opts: { id: string }): Promise<{ remaining: number; reset: number; total: number }>;
  }
}
