// The store behind the cached-hit fast path (issue 9): a repeated GET/HEAD /v1/metadata for
// exactly the same request URL is answered with the JSON bytes already sent once, without
// openapi-backend routing and validating it again (that alone costs ~2.4× in req/s). SPEC.md makes
// the full request URL the cache key, so an answer stored under exactly that URL is the answer; a
// different query string (another `prefer`, a utm tag, another spelling of `url`) is another entry
// and takes the full path.
// This middleware stores every 200 answer; api/fast-path.ts answers the hits, before Koa builds a
// context at all, with the same headers and the same counting as the middleware chain.

import type { Context, Next } from 'koa';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import { codedBody, lazyBodies, preferredCoding, type CodedBodies } from './content-coding.js';

export const CACHED_PATH = '/v1/metadata';
export const JSON_TYPE = 'application/json; charset=utf-8';

export interface ResponseCacheOptions {
  /** Entries held at most. */
  maxEntries: number;
  /** Bytes held at most: the JSON bodies and their keys (UTF-8). */
  maxBytes: number;
  /** How long a stored answer is served; never longer than the extraction it came from lives. */
  ttlMs: number;
}

/**
 * Bounds from Config: the extraction TTL (an answer must not outlive the extraction it shows) and a
 * quarter of the extraction cache's byte budget (an answer is one variant of an extraction, which
 * holds two, so a quarter keeps the two caches together near 1.25× CACHE_MAX_BYTES).
 */
export function responseCacheOptions(config: Config): ResponseCacheOptions {
  return { maxEntries: config.cacheMaxEntries, maxBytes: Math.max(1024, Math.floor(config.cacheMaxBytes / 4)), ttlMs: config.cacheTtlMs };
}

/** Marks the middleware, whatever a bundler renames it to (tests and benchmarks find it by this). */
export const RESPONSE_CACHE = Symbol.for('linkpeek.responseCache');

export function isResponseCache(middleware: unknown): middleware is ResponseCache {
  return typeof middleware === 'function' && RESPONSE_CACHE in middleware;
}

export interface ResponseCache {
  (ctx: Context, next: Next): Promise<void>;
  readonly [RESPONSE_CACHE]: true;
  /** The stored answer for exactly this request target (path and query), if any and not expired. */
  get(requestTarget: string): CodedBodies | undefined;
  /** Entries held now (tests and metrics). */
  readonly size: number;
  /** Bytes held now, as counted against maxBytes. */
  readonly bytes: number;
  clear(): void;
}

export function responseCache(options: ResponseCacheOptions): ResponseCache {
  const cache = new LRUCache<string, CodedBodies>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    // Counted when stored, before any compressed form exists: room for them is reserved as much
    // again as the JSON (gzip and brotli of a metadata answer each take a third of it or less).
    sizeCalculation: (bodies, key) => Math.max(1, 2 * bodies.identity.length + Buffer.byteLength(key)),
    ttl: options.ttlMs,
    // An expired answer is never served: the next request takes the full path and refreshes it.
    allowStale: false,
  });

  const middleware = async function responseCache(ctx: Context, next: Next): Promise<void> {
    await next(); // a thrown error passes through and is never stored
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path !== CACHED_PATH || options.ttlMs <= 0) return;
    if (ctx.status !== 200 || !isJsonObject(ctx.body)) return;
    // Encoded once here and sent as these bytes; Koa would have stringified the same way
    // (JSON.stringify, no spacing), so a hit and the miss before it answer identical bytes.
    // Each compressed form is made once, for the first client that asks for it, and kept.
    const bodies = lazyBodies(Buffer.from(JSON.stringify(ctx.body)));
    sendCoded(ctx, bodies);
    // A handler that knows its extraction expires sooner says so (ctx.state.cacheTtlMs, ms left);
    // otherwise the answer lives CACHE_TTL_MS from now, as the extraction stored with it does.
    const left = ctx.state.cacheTtlMs;
    const ttl = typeof left === 'number' && left >= 0 ? Math.min(left, options.ttlMs) : options.ttlMs;
    if (ttl > 0) cache.set(ctx.originalUrl, bodies, { ttl });
  };

  return Object.defineProperties(middleware, {
    [RESPONSE_CACHE]: { value: true },
    get: { value: (requestTarget: string) => cache.get(requestTarget) },
    size: { get: () => cache.size },
    bytes: { get: () => cache.calculatedSize },
    clear: { value: () => cache.clear() },
  }) as ResponseCache;
}

/** Answers with the form of `bodies` the client accepts; caches in between keep one per coding. */
function sendCoded(ctx: Context, bodies: CodedBodies): void {
  const { body, coding } = codedBody(bodies, preferredCoding(ctx.get('Accept-Encoding')));
  ctx.body = body;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.vary('Accept-Encoding');
  if (coding !== 'identity') ctx.set('Content-Encoding', coding);
}

/** A body Koa would send as JSON: a plain object or array, not a string, Buffer or stream. */
function isJsonObject(body: unknown): body is object {
  if (body === null || typeof body !== 'object') return false;
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return false;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return false;
  return true;
}
