// The metadata service: the pipeline (src/metadata/service.ts) behind the extraction store and
// the single flight. A page is extracted at most once at a time per key, fleet-wide with Redis,
// and kept for its lifetime (cache/lifetime.ts): both preferences for CACHE_TTL_MS, or the page's
// own failure for CACHE_FAILURE_TTL_MS so a dead host is not hammered.

import type { Config } from '../config.js';
import { FetchFailed, FetchTimeout } from '../errors.js';
import { failures } from '../failure-reasons.js';
import type { MetadataPipeline } from '../metadata/service-types.js';
import type { Answer, CacheOutcome, MetadataService, Prefer, RequestTiming } from '../metadata/service-types.js';
import { hrefWithoutFragment } from '../url-fragment.js';
import type { Extraction, ExtractionStore } from './extraction-store.js';
import { extractionExpiry, type Clock } from './lifetime.js';
import { SingleFlight } from './single-flight.js';

export interface CachedMetadataDeps {
  config: Pick<Config, 'cacheTtlMs' | 'cacheFailureTtlMs' | 'requestDeadlineMs' | 'fetchTimeoutMs'>;
  store: ExtractionStore;
  /** Observability hooks (metrics): cache outcome of each request. */
  onCache?: (outcome: CacheOutcome) => void;
  /** The clock the lifetimes start on (Date.now by default). */
  now?: Clock;
}

/** The cache key of a target: its URL without the fragment, which never reaches the server. */
export function extractionKey(target: URL): string {
  return hrefWithoutFragment(target);
}

export function cachedMetadata(extract: MetadataPipeline, { config, store, onCache, now = Date.now }: CachedMetadataDeps): MetadataService {
  /** Longest an extraction can take: its deadline, and a margin. */
  const flights = new SingleFlight(store, config.requestDeadlineMs + 1000);

  function settle(outcome: CacheOutcome, timing: RequestTiming | undefined): void {
    onCache?.(outcome);
    if (timing) timing.cache = outcome;
  }

  async function extractAndKeep(target: URL, key: string, client: string | undefined, timing: RequestTiming | undefined): Promise<Extraction> {
    try {
      const { og, twitter } = await extract(target, client, timing);
      const value: Extraction = { ok: true, og, twitter, expiresAt: extractionExpiry(true, config, now()) };
      await store.set(key, value);
      return value;
    } catch (err) {
      // The page's own failures are kept briefly. Our saturation (Overloaded, a deadline spent
      // waiting for a slot) and the unexpected say nothing about the page
      // (LinkPeekError.pageFailure) and are not kept: the next request tries afresh.
      if (err instanceof FetchFailed && err.pageFailure) {
        const code = err instanceof FetchTimeout ? 'FETCH_TIMEOUT' : 'FETCH_FAILED';
        const value: Extraction = { ok: false, code, reason: err.reason, failure: err.failure, expiresAt: extractionExpiry(false, config, now()) };
        await store.set(key, value);
        return value;
      }
      throw err;
    }
  }

  return {
    async get(target: URL, prefer: Prefer, client?: string, timing?: RequestTiming): Promise<Answer> {
      const key = extractionKey(target);
      let extraction = await store.get(key);
      if (extraction) settle('hit', timing);
      else {
        // The fetch is charged to this client; those who join it while in flight share it free.
        // Settled before the extraction runs: it may find another instance's result and say 'shared'.
        const flight = flights.run(
          key,
          () => extractAndKeep(target, key, client, timing),
          () => {
            if (timing) timing.cache = 'shared';
          },
        );
        settle(flight.outcome, timing);
        extraction = await flight.extraction;
      }
      if (!extraction.ok) {
        if (extraction.code === 'FETCH_TIMEOUT') throw new FetchTimeout(extraction.reason, { deadlineMs: config.fetchTimeoutMs, failure: extraction.failure });
        throw new FetchFailed(extraction.reason, { failure: extraction.failure ?? failures.unreachable() });
      }
      return { metadata: extraction[prefer], expiresAt: extraction.expiresAt };
    },
    async close() {},
  };
}
