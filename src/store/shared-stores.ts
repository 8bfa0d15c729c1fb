// The stores the fleet shares, built from the settings: the Redis connection (any of its shapes,
// store/redis.ts), the rate limiter with its outage policy, and the failovers. The rate limiter and
// the cache each get a Failover of their own, so the cache's trouble (a write refused by a full
// Redis, a slow read) never moves the limiter off the shared store while Redis answers the
// limiter's own commands; the other way round, the cache follows the limiter's failover (the
// limiter's commands failing means Redis is gone for both). The limiter's background check is the fleet heartbeat (store/fleet.ts):
// one round trip a second that also counts the live instances the outage policy shares the limit by.

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Failover } from './failover.js';
import { Fleet } from './fleet.js';
import { OutageSafeRateLimitStore } from './rate-limit-outage.js';
import { MemoryRateLimitStore, type RateLimitOptions, type RateLimitStore } from './rate-limit.js';
import { RedisRateLimitStore } from './rate-limit-redis.js';
import { redisKeys } from './redis-keys.js';
import { connectRedis, redisTarget, type RedisClient } from './redis.js';

export interface SharedStores {
  /** Null without Redis settings: every store is in memory. */
  redis: RedisClient | null;
  /** The limiter, or null when RATE_LIMIT_MAX is 0. */
  limiter: RateLimitStore | null;
  /** The cache's failover (null without Redis). */
  cacheFailover: Failover | null;
  /** Null without Redis; else whether the limiter and the cache are both on it now. */
  redisUp(): boolean | null;
  close(): void;
}

/** Redis answered, but the write did not fit (maxmemory): not an outage. */
export function isOutOfMemory(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('OOM');
}

export async function createSharedStores(config: Config, logger: Logger): Promise<SharedStores> {
  const opts = rateLimitOptions(config);
  const target = redisTarget(config);
  if (!target) {
    const limiter = opts && new MemoryRateLimitStore(opts);
    return { redis: null, limiter, cacheFailover: null, redisUp: () => null, close: () => limiter?.close() };
  }
  const redis = await connectRedis(target, logger, config.redisTimeoutMs);
  const keys = redisKeys(config.redisKeyPrefix);
  // This app's name in the fleet: one per app, so that apps sharing a process count apart.
  const instance = randomBytes(6).toString('base64url');
  let limiter: OutageSafeRateLimitStore | null = null;
  const lostData = () => {
    logger.warn('redis lost its data: this instance sends back the budgets it counts');
    void limiter?.rejoin(true);
  };
  const fleet = new Fleet(redis, keys.instances, lostData, Date.now, instance);
  const limiterFailover = new Failover({
    deadlineMs: config.redisTimeoutMs,
    check: () => fleet.beat(),
    tripsOn: (err) => !isOutOfMemory(err),
    onChange: (degraded, err) => {
      if (degraded)
        logger.warn({ err: errorText(err), policy: config.rateLimitOutage, instances: fleet.size }, 'redis failed: rate limit decided by this instance');
      else {
        logger.info('redis answers again: rate limit shared again');
        void limiter?.rejoin();
      }
    },
  });
  void limiterFailover.check(); // the first heartbeat now: the fleet's size before any outage
  const cacheFailover = new Failover({
    deadlineMs: config.redisTimeoutMs,
    check: () => redis.ping(),
    tripsOn: (err) => !isOutOfMemory(err),
    follows: limiterFailover,
    onChange: (degraded, err) => {
      if (degraded) logger.warn({ err: errorText(err) }, 'redis failed: cache in memory');
      else logger.info('redis answers again: cache shared again');
    },
  });
  if (opts)
    limiter = new OutageSafeRateLimitStore(
      new RedisRateLimitStore(redis, opts, config.redisKeyPrefix, instance),
      opts,
      limiterFailover,
      fleet,
      config.rateLimitOutage,
    );
  return {
    redis,
    limiter,
    cacheFailover,
    redisUp: () => !limiterFailover.degraded && !cacheFailover.degraded && redis.status === 'ready',
    close() {
      limiter?.close();
      limiterFailover.close();
      cacheFailover.close();
      redis.disconnect();
    },
  };
}

function rateLimitOptions(config: Config): RateLimitOptions | null {
  if (config.rateLimitMax === 0) return null;
  // docs/SPEC.md "Limits": the block after the limit lasts as long as the window (10 s by default).
  return { max: config.rateLimitMax, windowMs: config.rateLimitWindowMs, blockMs: config.rateLimitWindowMs };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
