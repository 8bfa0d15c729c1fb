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
import { RecentScanTimes } from '../metadata/scan-times.js';
import { createMetadataPipeline, type Enricher } from '../metadata/service.js';
import type { CacheOutcome, MetadataService } from '../metadata/service-types.js';
import { createSafetyCheck, type SafetyCheck } from '../safety/index.js';
import { CPU_MS_PER_SLOT } from '../fetch/client-cost.js';
import { firstSliceFor, refusesCostlyPages } from './costly-pages.js';
import { ScanTurns } from '../../wasm-parser/index.js';

/**
 * Head scans taking turns at once (past their first slice): two, so that a flood of heavy pages
 * is scanned two at a time, each finishing, while the rest wait unread (wasm-parser/scan-turns.ts),
 * and the scans are crowded (src/engine/costly-pages.ts) as soon as a third must wait.
 * A client whose recent scans cost at most two fetch slots' worth of CPU is never held back.
 */
const ACTIVE_SCANS = 2;
const LIGHT_SCAN_COST_MS = 2 * CPU_MS_PER_SLOT;

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
  /** Resolve image and icon hosts while the head downloads (default on when images are probed). */
  prefetchImageHosts?: boolean;
  /** Replaces the known oEmbed providers (tests register providers on loopback). */
  oembedProviders?: EmbedLookupDeps['providers'];
  hooks?: EngineHooks;
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
  const scanTurns = new ScanTurns({ maxActive: ACTIVE_SCANS, lightCost: LIGHT_SCAN_COST_MS, cost: (key) => fetcher.limiter.costs.decayed(key) });
  // Safe Browsing's own API calls resolve through the same resolver, never dns.lookup.
  const apiFetch = fetchThrough(resolver);
  const safety = createSafetyCheck(config, { logger, fetch: apiFetch.fetch, onProviderFailure: hooks.onSafetyFailure });
  const embeds = embedLookup({ safeFetch, providers: deps.oembedProviders });
  const enrichers = deps.enrichers ?? [safetyEnricher(safety), imageEnricher({ safeFetch, config }), embeds.enricher];
  const pipeline = createMetadataPipeline({
    config,
    safeFetch,
    enrichers,
    embedStandsIn: embeds.standsIn,
    onEnricherError: (err) => logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'enrichment failed'),
    // A client whose pages cost CPU to scan gets smaller shares of fetches and lookups while
    // the cost is recent (fetch/client-cost.ts).
    onScanCost: (client, cpuMs, pages) => fetcher.chargeCpu(client, cpuMs, pages),
    scanTimes,
    scanTurns,
    refusesPage: refusesCostlyPages(scanTurns, fetcher.limiter.costs, config.scanBudgetMs),
    firstSliceMs: firstSliceFor(fetcher.limiter.costs),
    // Within the client's share of lookups, and only when it has one free (fetch/lookups.ts).
    prefetchHost: config.probeImages && deps.prefetchImageHosts !== false ? (host, client) => fetcher.lookups.prefetch(host, client) : undefined,
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
    async close(options) {
      await metadata.close();
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
