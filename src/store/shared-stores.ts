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

/** The limiter's two budgets: a client's, and its IPv6 /48's (null when RATE_LIMIT_IPV6_48_MAX is 0). */
export interface RateLimitBudgets {
  client: RateLimitStore;
  site: RateLimitStore | null;
}

export interface SharedStores {
  /** Null without Redis settings: every store is in memory. */
  redis: RedisClient | null;
  /** The limiter's budgets (a client's, and its IPv6 /48's), or null when RATE_LIMIT_MAX is 0. */
  limiter: RateLimitBudgets | null;
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
  const opts = rateLimitOptions(config, config.rateLimitMax);
  const siteOpts = rateLimitOptions(config, config.rateLimitIpv6SiteMax);
  const target = redisTarget(config);
  if (!target) {
    const limiter = opts && { client: new MemoryRateLimitStore(opts), site: siteOpts && new MemoryRateLimitStore(siteOpts) };
    return { redis: null, limiter, cacheFailover: null, redisUp: () => null, close: () => closeBudgets(limiter) };
  }
  const redis = await connectRedis(target, logger, config.redisTimeoutMs);
  const keys = redisKeys(config.redisKeyPrefix);
  // This app's name in the fleet: one per app, so that apps sharing a process count apart.
  const instance = randomBytes(6).toString('base64url');
  let limiter: { client: OutageSafeRateLimitStore; site: OutageSafeRateLimitStore | null } | null = null;
  const rejoin = (lost?: boolean) => {
    void limiter?.client.rejoin(lost);
    void limiter?.site?.rejoin(lost);
  };
  const lostData = () => {
    logger.warn('redis lost its data: this instance sends back the budgets it counts');
    rejoin(true);
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
        rejoin();
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
  const shared = (budget: RateLimitOptions) =>
    new OutageSafeRateLimitStore(
      new RedisRateLimitStore(redis, budget, config.redisKeyPrefix, instance),
      budget,
      limiterFailover,
      fleet,
      config.rateLimitOutage,
    );
  // The two budgets' keys never meet: a /48's key ends in /48, a client's is an IPv4 address or a /64.
  if (opts) limiter = { client: shared(opts), site: siteOpts && shared(siteOpts) };
  return {
    redis,
    limiter,
    cacheFailover,
    redisUp: () => !limiterFailover.degraded && !cacheFailover.degraded && redis.status === 'ready',
    close() {
      closeBudgets(limiter);
      limiterFailover.close();
      cacheFailover.close();
      redis.disconnect();
    },
  };
}

/** A budget of `max` requests per window; null for 0 (none). */
function rateLimitOptions(config: Config, max: number): RateLimitOptions | null {
  if (max === 0 || config.rateLimitMax === 0) return null;
  // docs/SPEC.md "Limits": the block after the limit lasts as long as the window (10 s by default).
  return { max, windowMs: config.rateLimitWindowMs, blockMs: config.rateLimitWindowMs };
}

function closeBudgets(limiter: RateLimitBudgets | null): void {
  limiter?.client.close();
  limiter?.site?.close();
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
