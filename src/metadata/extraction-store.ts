// Where finished extractions are kept (DESIGN.md "Caching"): lru-cache in memory by default,
// bounded by entries and bytes; Redis when REDIS_URL is set, shared by every instance, falling
// back to memory while Redis fails, never a 500 because a store is down.

import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Metadata } from '../../generated/types.gen.js';
import type { Failover } from '../store/failover.js';

/** One cached answer for a target URL: both preferences, or the failure to repeat for a while. */
export type Extraction =
  | { ok: true; og: Metadata; twitter: Metadata }
  | { ok: false; code: 'FETCH_FAILED' | 'FETCH_TIMEOUT'; reason: string };

export interface ExtractionStore {
  get(key: string): Promise<Extraction | undefined>;
  set(key: string, value: Extraction, ttlMs: number): Promise<void>;
  readonly kind: string;
}

export class MemoryExtractionStore implements ExtractionStore {
  readonly kind = 'memory';
  private readonly lru: LRUCache<string, Extraction>;

  constructor(opts: { maxEntries: number; maxBytes: number }) {
    this.lru = new LRUCache<string, Extraction>({
      max: opts.maxEntries,
      maxSize: opts.maxBytes,
      // A close estimate of the memory an entry holds: its JSON length, counted once on insert.
      sizeCalculation: (value, key) => key.length + JSON.stringify(value).length,
    });
  }

  async get(key: string): Promise<Extraction | undefined> {
    return this.lru.get(key);
  }

  async set(key: string, value: Extraction, ttlMs: number): Promise<void> {
    if (ttlMs > 0) this.lru.set(key, value, { ttl: ttlMs });
  }

  get size(): number {
    return this.lru.size;
  }
}

const PREFIX = 'lp:x:';

export class RedisExtractionStore implements ExtractionStore {
  readonly kind = 'redis';
  constructor(private readonly redis: Redis) {}

  async get(key: string): Promise<Extraction | undefined> {
    const raw = await this.redis.get(PREFIX + key);
    return raw === null ? undefined : (JSON.parse(raw) as Extraction);
  }

  async set(key: string, value: Extraction, ttlMs: number): Promise<void> {
    if (ttlMs > 0) await this.redis.set(PREFIX + key, JSON.stringify(value), 'PX', ttlMs);
  }
}

/** Redis first; memory while it fails (store/failover.ts): an outage costs hit rate, never an answer. */
export class FallbackExtractionStore implements ExtractionStore {
  readonly kind = 'redis';
  constructor(
    private readonly primary: ExtractionStore,
    private readonly fallback: ExtractionStore,
    private readonly failover: Failover,
  ) {}

  get(key: string): Promise<Extraction | undefined> {
    return this.failover.run(
      () => this.primary.get(key),
      () => this.fallback.get(key),
    );
  }

  set(key: string, value: Extraction, ttlMs: number): Promise<void> {
    return this.failover.run(
      () => this.primary.set(key, value, ttlMs),
      () => this.fallback.set(key, value, ttlMs),
    );
  }
}
