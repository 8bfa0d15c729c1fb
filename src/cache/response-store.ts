// Answers already sent, by exact request target (path and query), as the bytes sent: what a
// repeated request is answered from (api/cached-answer.ts) before routing runs. docs/SPEC.md
// makes the full request URL the cache key, so an answer stored under exactly that target is the
// answer; a different query string (another `prefer`, a utm tag, another spelling of `url`) is
// another entry. An answer is kept only as long as the extraction it shows (cache/lifetime.ts).

import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import type { CodedBodies } from '../content-coding.js';
import { lruClock, remainingMs, type Clock } from './lifetime.js';

export interface ResponseStoreOptions {
  /** Entries held at most. */
  maxEntries: number;
  /** Bytes held at most: the JSON bodies and their keys (UTF-8). */
  maxBytes: number;
  now?: Clock;
}

/**
 * Bounds from Config: a quarter of the extraction cache's byte budget (an answer is one variant
 * of an extraction, which holds two, so a quarter keeps the two caches together near 1.25×
 * CACHE_MAX_BYTES).
 */
export function responseStoreOptions(config: Config): ResponseStoreOptions {
  return { maxEntries: config.cacheMaxEntries, maxBytes: Math.max(1024, Math.floor(config.cacheMaxBytes / 4)) };
}

export class ResponseStore {
  private readonly cache: LRUCache<string, CodedBodies>;
  private readonly now: Clock;

  constructor(options: ResponseStoreOptions) {
    this.now = options.now ?? Date.now;
    this.cache = new LRUCache<string, CodedBodies>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      // Counted when stored, before any compressed form exists: room for them is reserved as much
      // again as the JSON (gzip and brotli of a metadata answer each take a third of it or less).
      sizeCalculation: (bodies, key) => Math.max(1, 2 * bodies.identity.length + Buffer.byteLength(key)),
      // An expired answer is never served: the next request takes the full path and refreshes it.
      allowStale: false,
      ...lruClock(options.now),
    });
  }

  /** The stored answer for exactly this request target, if any and not expired. */
  get(requestTarget: string): CodedBodies | undefined {
    return this.cache.get(requestTarget);
  }

  /** Keeps `bodies` until `expiresAt` (epoch ms), the expiry of the extraction they show. */
  set(requestTarget: string, bodies: CodedBodies, expiresAt: number): void {
    const ttl = remainingMs(expiresAt, this.now());
    if (ttl > 0) this.cache.set(requestTarget, bodies, { ttl });
  }

  /** Entries held now. */
  get size(): number {
    return this.cache.size;
  }

  /** Bytes held now, as counted against maxBytes. */
  get bytes(): number {
    return this.cache.calculatedSize;
  }
}
