// The engine: everything between a target URL and its Metadata (resolver, safeFetch, scan, rules,
// enrichment), composed here and nowhere else. The HTTP service (app.ts) and the library
// (linkpeek.ts) both build theirs with createEngine, so they run the same code; the service adds
// its faces (metrics, /healthz, rate limits) through the hooks.

import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { LinkPeekError } from '../errors.js';
import { cachedMetadata } from '../cache/cached-metadata.js';
import { MemoryExtractionStore, type ExtractionStore } from '../cache/extraction-store.js';
import type { Clock } from '../cache/lifetime.js';
import { createSafeFetch, type CloseOptions, type SafeFetchDeps, type SafeFetchService } from '../fetch/fetcher.js';
import { fetchThrough } from '../fetch/plain-fetch.js';
import { DnsResolver, type DnsCacheResult, type DnsOutcome, type Resolver } from '../fetch/resolver.js';
import type { SafeFetch } from '../fetch/types.js';
import { embedLookup, type EmbedLookupDeps } from '../oembed/embed-lookup.js';
import { imageEnricher } from '../metadata/enrich-images.js';
import { safetyEnricher } from '../metadata/enrich-safety.js';
import type { Enricher } from '../metadata/enrichment.js';
import { LoadShedder } from '../fairness/load-shedder.js';
import { inlineScanner, type PageScanner, ScanPool } from '../scan/scan-pool.js';
import { RecentScanTimes } from '../scan/scan-times.js';
import { createMetadataPipeline } from './pipeline.js';
import type { CacheOutcome, MetadataService } from '../metadata/service-types.js';
import { createSafetyCheck, type SafetyCheck } from '../safety/index.js';

/**
 * Scans that may wait for a thread, per thread; past it the heaviest client's newest is refused
 * (Overloaded). A page's scan takes a few ms: this is seconds of work.
 */
const SCAN_QUEUE_PER_THREAD = 256;

/**
 * With load shedding on (the service), a page that has waited this long for a scan thread is refused
 * (503 Overloaded) instead of scanned late, if its client is one the shedder refuses now (the
 * heaviest): a queue of heavy pages admitted in one burst would otherwise hold seconds of scans.
 * A second: a client refused should know it within two.
 */
const MAX_SCAN_WAIT_MS = 1000;

/** What the service counts (metrics.ts); the library passes none. */
export interface EngineHooks {
  onDnsQuery?: (outcome: DnsOutcome, seconds: number) => void;
  onDnsCache?: (result: DnsCacheResult) => void;
  onCache?: (outcome: CacheOutcome) => void;
  onSafetyFailure?: (provider: string) => void;
  /** Starts timing one upstream fetch (the pipeline's and the image proxy's); told its outcome when it has headers or failed. */
  timeFetch?: () => (labels: { outcome: string }) => void;
}

export interface EngineDeps {
  logger?: Logger;
  /** How upstream fetches resolve names and judge addresses (tests inject a resolver). */
  fetch?: SafeFetchDeps;
  /** Where extractions are kept (default: memory, bounded by CACHE_MAX_ENTRIES and CACHE_MAX_BYTES). */
  store?: ExtractionStore;
  /** The clock of cached things' lifetimes, epoch ms (Date.now by default; tests move one). */
  now?: Clock;
  /** Replaces the whole metadata pipeline (tests of the HTTP layer alone). */
  metadata?: MetadataService;
  /** Replaces the default enrichment steps (safety tags; image and favicon probes; oEmbed). */
  enrichers?: Enricher[];
  /** Replaces the known oEmbed providers (tests register providers on loopback). */
  oembedProviders?: EmbedLookupDeps['providers'];
  hooks?: EngineHooks;
  /** Refuse pages past capacity (SHED_TARGET_MS): the service's, never the library's. */
  shedLoad?: boolean;
}

export interface Engine {
  config: Config;
  resolver: Resolver;
  fetcher: SafeFetchService;
  /** The guarded fetch, with the hooks' wrapper: the image proxy uses it too. */
  safeFetch: SafeFetch;
  safety: SafetyCheck;
  metadata: MetadataService;
  /** Each scan's time, for /healthz. */
  scanTimes: RecentScanTimes;
  /** Where pages are scanned: SCAN_WORKERS threads, or inline (0). */
  scanner: PageScanner;
  /** Refuses pages past capacity; null when every page is admitted. */
  shedder: LoadShedder | null;
  /** Releases what the engine opened: fetches in flight end within their deadline first, or at once with `cut`. */
  close(options?: CloseOptions): Promise<void>;
}

export function createEngine(config: Config, deps: EngineDeps = {}): Engine {
  const { logger, hooks = {} } = deps;
  const resolver: Resolver =
    deps.fetch?.resolver ??
    new DnsResolver({
      timeoutMs: config.dnsTimeoutMs,
      servers: config.dnsServers,
      observer: { onQuery: hooks.onDnsQuery, onCache: hooks.onDnsCache },
    });
  const fetcher = createSafeFetch(config, { logger, ...deps.fetch, resolver });
  const safeFetch = hooks.timeFetch ? timed(fetcher.safeFetch, hooks.timeFetch) : fetcher.safeFetch;
  const scanTimes = new RecentScanTimes();
  // One ledger for every queue: a client whose pages cost CPU to scan gets smaller shares of scans,
  // fetches and lookups while the cost is recent (fairness/client-ledger.ts).
  const scanner: PageScanner =
    config.scanWorkers === 0
      ? inlineScanner()
      : new ScanPool({
          size: config.scanWorkers,
          maxQueued: SCAN_QUEUE_PER_THREAD * config.scanWorkers,
          ledger: fetcher.limiter.costs,
          maxWaitMs: deps.shedLoad && config.shedTargetMs > 0 ? MAX_SCAN_WAIT_MS : 0,
          refusesStale: (client) => shedder?.isRefusing(client) ?? false,
          lightThread: true,
        });
  // Safe Browsing's own API calls resolve through the same resolver, never dns.lookup.
  const apiFetch = fetchThrough(resolver);
  const safety = createSafetyCheck(config, { logger, fetch: apiFetch.fetch, onProviderFailure: hooks.onSafetyFailure });
  const embeds = embedLookup({ safeFetch, providers: deps.oembedProviders });
  const enrichers = deps.enrichers ?? [safetyEnricher(safety), imageEnricher({ safeFetch, config }), embeds.enricher];
  const shedder: LoadShedder | null =
    deps.shedLoad && config.shedTargetMs > 0
      ? new LoadShedder({
          ledger: fetcher.limiter.costs,
          queues: { fetches: fetcher.limiter, lookups: fetcher.lookups.scheduler, scans: scanner.queue },
          targetMs: config.shedTargetMs,
        })
      : null;
  shedder?.watchEventLoop();
  const pipeline = createMetadataPipeline({
    config,
    safeFetch,
    scanner,
    enrichers,
    embedStandsIn: embeds.standsIn,
    onEnricherError: (err) => logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'enrichment failed'),
    scanTimes,
    admit: shedder ? (client) => shedder.admit(client) : undefined,
  });
  // The pipeline behind the cache: extractions kept for their lifetime, one fetch per page at a time.
  const store = deps.store ?? new MemoryExtractionStore({ maxEntries: config.cacheMaxEntries, maxBytes: config.cacheMaxBytes, now: deps.now });
  const metadata = deps.metadata ?? cachedMetadata(pipeline, { config, store, onCache: hooks.onCache, now: deps.now });

  return {
    config,
    resolver,
    fetcher,
    safeFetch,
    safety,
    metadata,
    scanTimes,
    scanner,
    shedder,
    async close(options) {
      shedder?.close();
      await metadata.close();
      await scanner.close();
      safety.close();
      await fetcher.close(options);
      await apiFetch.close(options);
      if (!deps.fetch?.resolver) resolver.close();
    },
  };
}

/** safeFetch with each fetch's duration and outcome told: `2xx`…`5xx`, the error's code, or `error`. */
function timed(safeFetch: SafeFetch, start: NonNullable<EngineHooks['timeFetch']>): SafeFetch {
  return async (url, options) => {
    const done = start();
    try {
      const res = await safeFetch(url, options);
      done({ outcome: `${Math.floor(res.status / 100)}xx` });
      return res;
    } catch (err) {
      done({ outcome: err instanceof LinkPeekError ? err.code.toLowerCase() : 'error' });
      throw err;
    }
  };
}
