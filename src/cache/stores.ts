// Both stores of the cache, built from the settings: the extractions (in memory, or in Redis
// shared by the fleet with memory answering while Redis fails) and the answers already sent (in
// memory: the bytes of one instance's responses).

import type { Config } from '../config.js';
import type { Failover } from '../store/failover.js';
import type { RedisClient } from '../store/redis.js';
import { FallbackExtractionStore, MemoryExtractionStore, RedisExtractionStore, type ExtractionStore } from './extraction-store.js';
import type { Clock } from './lifetime.js';
import { ResponseStore, responseStoreOptions } from './response-store.js';

export interface CacheStores {
  extractions: ExtractionStore;
  responses: ResponseStore;
}

/** `now`: the clock of the entries' lifetimes (Date.now by default). */
export function createCacheStores(config: Config, redis: RedisClient | null, failover: Failover | null, now?: Clock): CacheStores {
  const memory = new MemoryExtractionStore({ maxEntries: config.cacheMaxEntries, maxBytes: config.cacheMaxBytes, now });
  const shared = redis && failover && new RedisExtractionStore(redis, config.redisKeyPrefix, now);
  shared?.listen(); // before the first wait for another instance's fetch
  return {
    extractions: shared ? new FallbackExtractionStore(shared, memory, failover) : memory,
    responses: new ResponseStore({ ...responseStoreOptions(config), now }),
  };
}
