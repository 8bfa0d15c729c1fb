// Both stores of the cache, built from the settings: the extractions (in memory, or in Redis
// shared by the fleet with memory answering while Redis fails) and the answers already sent (in
// memory: the bytes of one instance's responses).

import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Failover } from '../store/failover.js';
import { FallbackExtractionStore, MemoryExtractionStore, RedisExtractionStore, type ExtractionStore } from './extraction-store.js';
import { ResponseStore, responseStoreOptions } from './response-store.js';

export interface CacheStores {
  extractions: ExtractionStore;
  responses: ResponseStore;
}

export function createCacheStores(config: Config, redis: Redis | null, failover: Failover | null): CacheStores {
  const memory = new MemoryExtractionStore({ maxEntries: config.cacheMaxEntries, maxBytes: config.cacheMaxBytes });
  return {
    extractions: redis && failover ? new FallbackExtractionStore(new RedisExtractionStore(redis, config.redisKeyPrefix), memory, failover) : memory,
    responses: new ResponseStore(responseStoreOptions(config)),
  };
}
