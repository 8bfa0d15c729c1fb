// koa-ratelimit's Redis counting driver, used directly by src/store/rate-limit.ts (the
// middleware is ours: see that file for why). The package ships no types for this path.
declare module 'koa-ratelimit/limiter/redis.js' {
  import type { Redis } from 'ioredis';
  export default class RedisLimiter {
    constructor(opts: { db: Redis; max: number; duration: number; namespace?: string });
    /** remaining > 0: allowed (this call counted); reset in epoch seconds. */
    get(opts: { id: string }): Promise<{ remaining: number; reset: number; total: number }>;
  }
}
