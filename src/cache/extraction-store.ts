// Where finished extractions are kept (docs/ARCHITECTURE.md): lru-cache in memory by default,
// bounded by entries and bytes; Redis when REDIS_URL is set, shared by every instance, falling
// back to memory while Redis fails, never a 500 because a store is down.

import { LRUCache } from 'lru-cache';
import type { Metadata } from '../../generated/types.gen.js';
import type { FetchFailure } from '../failure-reasons.js';
import type { Failover } from '../store/failover.js';
import { EXTRACTION_VERSION, storedExtractionCheck } from './extraction-shape.js';
import type { RedisClient } from '../store/redis.js';
import { redisKeys, type RedisKeys } from '../store/redis-keys.js';
import { lruClock, remainingMs, type Clock } from './lifetime.js';

/**
 * One cached answer for a target URL: both preferences, or the failure to repeat for a while.
 * `expiresAt` (epoch ms, cache/lifetime.ts) travels with it, so whoever serves it from any store
 * knows how long what it builds from it may be kept.
 */
export type Extraction = (
  { ok: true; og: Metadata; twitter: Metadata } | { ok: false; code: 'FETCH_FAILED' | 'FETCH_TIMEOUT'; reason: string; failure?: FetchFailure }
) & { expiresAt: number };

export interface ExtractionStore {
  get(key: string): Promise<Extraction | undefined>;
  /** Keeps `value` until its `expiresAt`; one already expired is not stored. */
  set(key: string, value: Extraction): Promise<void>;
  /**
   * Claims the right to fetch `key` for `ttlMs` across every instance sharing this store (the
   * fleet-wide half of single-flight; the in-process half is cache/single-flight.ts). False when
   * another instance holds it.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** True while some instance holds the claim on `key`. */
  claimed(key: string): Promise<boolean>;
  /** Lets the claim on `key` go and wakes every instance waiting on it (`fetchEnded`). */
  release(key: string): Promise<void>;
  /**
   * Resolves when an instance releases its claim on `key`, or after `ms` at the latest (a
   * notice lost with a connection, a claim that expired with its instance).
   */
  fetchEnded(key: string, ms: number): Promise<void>;
  /** Closes what the store opened of its own (the shared store's listening connection). */
  close?(): void;
  readonly kind: string;
}

export class MemoryExtractionStore implements ExtractionStore {
  readonly kind = 'memory';
  private readonly lru: LRUCache<string, Extraction>;
  private readonly now: Clock;

  constructor(opts: { maxEntries: number; maxBytes: number; now?: Clock }) {
    this.now = opts.now ?? Date.now;
    this.lru = new LRUCache<string, Extraction>({
      max: opts.maxEntries,
      maxSize: opts.maxBytes,
      // A close estimate of the memory an entry holds, counted once on insert.
      sizeCalculation: (value, key) => key.length + jsonLength(value),
      ...lruClock(opts.now),
    });
  }

  async get(key: string): Promise<Extraction | undefined> {
    return this.lru.get(key);
  }

  async set(key: string, value: Extraction): Promise<void> {
    const ttl = remainingMs(value.expiresAt, this.now());
    if (ttl > 0) this.lru.set(key, value, { ttl });
  }

  get size(): number {
    return this.lru.size;
  }

  // One process: cache/single-flight.ts already makes concurrent requests share one fetch.
  async claim(): Promise<boolean> {
    return true;
  }

  async claimed(): Promise<boolean> {
    return false;
  }

  async release(): Promise<void> {}

  fetchEnded(_key: string, ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/**
 * The length of `JSON.stringify(value)` but for escapes in its strings, without building the
 * string (which for an extraction's two variants costs more than the rest of its insert). An
 * extraction is a few levels of plain objects, arrays, strings and finite numbers.
 */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return String(value).length;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      // Brackets, and a comma after every item but the last.
      let length = 1;
      if (Array.isArray(value)) {
        for (const item of value) length += jsonLength(item) + 1;
        return Math.max(2, length);
      }
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item !== undefined) length += key.length + 4 + jsonLength(item);
      }
      return Math.max(2, length);
    }
    default:
      return 0;
  }
}

/**
 * Entries carry their lifetime as a Redis expiry (PX), which is also what makes them the keys
 * Redis may evict when full (README "Redis memory": `volatile-lru`); the rate limiter's keys have
 * none and are never evicted.
 *
 * An instance waiting for another's fetch is woken by a notice, not by asking Redis again and
 * again: the instance that releases a claim publishes the page's key on one channel, which every
 * instance listens to on a connection of its own (a subscribed connection takes no other command),
 * opened by `listen()` and closed by `close()`.
 */
export class RedisExtractionStore implements ExtractionStore {
  readonly kind = 'redis';
  private readonly keys: RedisKeys;
  private subscriber: RedisClient | null = null;
  /** Page key → the wake-ups of the fetchEnded calls waiting on it. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly isExtraction = storedExtractionCheck();

  /** `keyPrefix` (REDIS_KEY_PREFIX) keeps deployments that share one Redis apart. */
  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
    private readonly now: Clock = Date.now,
  ) {
    // The keys' version names what an entry may hold (extraction-shape.ts: the rules and the
    // Metadata schema); it changes with that, so an entry written under older rules or schema is never served.
    this.keys = redisKeys(keyPrefix, EXTRACTION_VERSION);
  }

  async get(key: string): Promise<Extraction | undefined> {
    const raw = await this.redis.get(this.keys.extraction(key));
    if (raw === null) return undefined;
    // An entry that is not JSON or not of this version's shape is a miss: the fresh extraction replaces it.
    let stored: unknown;
    try {
      stored = JSON.parse(raw);
    } catch {
      return undefined;
    }
    return this.isExtraction(stored) ? (stored as Extraction) : undefined;
  }

  async set(key: string, value: Extraction): Promise<void> {
    const ttl = Math.ceil(remainingMs(value.expiresAt, this.now()));
    if (ttl > 0) await this.redis.set(this.keys.extraction(key), JSON.stringify(value), 'PX', ttl);
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.claim(key), '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async claimed(key: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.claim(key))) === 1;
  }

  async release(key: string): Promise<void> {
    await this.redis.del(this.keys.claim(key));
    await this.redis.publish(this.keys.flightsDone, key);
  }

  /** Opens the connection that hears of fetches ending (also opened by the first wait). */
  listen(): void {
    if (this.subscriber) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    // Its trouble is the main connection's, told by the failover; meanwhile waits end on their timer.
    subscriber.on('error', () => {});
    subscriber.on('ready', () => void subscriber.subscribe(this.keys.flightsDone).catch(() => {}));
    subscriber.on('message', (_channel: string, key: string) => this.wake(key));
  }

  close(): void {
    this.subscriber?.disconnect();
  }

  fetchEnded(key: string, ms: number): Promise<void> {
    this.listen();
    return new Promise((resolve) => {
      let wakeUps = this.waiting.get(key);
      if (!wakeUps) this.waiting.set(key, (wakeUps = new Set()));
      const waiters = wakeUps;
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }

  private wake(key: string): void {
    const waiters = this.waiting.get(key);
    if (waiters) for (const wake of [...waiters]) wake();
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

  set(key: string, value: Extraction): Promise<void> {
    return this.failover.run(
      () => this.primary.set(key, value),
      () => this.fallback.set(key, value),
    );
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return this.failover.run(
      () => this.primary.claim(key, ttlMs),
      () => this.fallback.claim(key, ttlMs),
    );
  }

  claimed(key: string): Promise<boolean> {
    return this.failover.run(
      () => this.primary.claimed(key),
      () => this.fallback.claimed(key),
    );
  }

  release(key: string): Promise<void> {
    return this.failover.run(
      () => this.primary.release(key),
      () => this.fallback.release(key),
    );
  }

  // Sends nothing to Redis: a notice or the timer ends it, whatever the failover says.
  fetchEnded(key: string, ms: number): Promise<void> {
    return this.primary.fetchEnded(key, ms);
  }

  close(): void {
    this.primary.close?.();
  }
}
