// createApp(config, deps): the Koa app and the order of its middleware. Stores and fetchers are
// passed in; only src/main.ts listens; tests build the app with their own deps and listen on
// port 0.

import type { IncomingMessage, ServerResponse } from 'node:http';
import compress from 'koa-compress';
import zlib from 'node:zlib';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { cors } from './api/cors.js';
import { assetRoutes } from './assets/routes.js';
import { errorBoundary } from './api/error-boundary.js';
import { refuseFetchLoops } from './api/fetch-loop.js';
import { createHandlers, type ImageProxy } from './api/handlers.js';
import { rateLimit } from './api/rate-limit.js';
import { withFastPath } from './api/fast-path.js';
import { ServiceKoa } from './api/hand-over.js';
import { requestLog, requestLogger } from './api/request-log.js';
import { createRouter } from './api/router.js';
import { showcaseLocation } from './api/showcase-location.js';
import { CPU_MS_PER_SLOT } from './fetch/client-cost.js';
import { createSafeFetch, type SafeFetchDeps } from './fetch/fetcher.js';
import { fetchThrough } from './fetch/plain-fetch.js';
import { DnsResolver } from './fetch/resolver.js';
import { LinkPeekError } from './errors.js';
import type { SafeFetch } from './fetch/types.js';
import { HealthMonitor } from './health.js';
import { createLogger } from './log.js';
import { Metrics } from './metrics.js';
import {
  FallbackExtractionStore,
  MemoryExtractionStore,
  RedisExtractionStore,
  type ExtractionStore,
} from './cache/extraction-store.js';
import { ResponseStore, responseStoreOptions } from './cache/response-store.js';
import { embedLookup, type EmbedLookupDeps } from './metadata/enrich-embed.js';
import { imageEnricher } from './metadata/enrich-images.js';
import { safetyEnricher } from './metadata/enrich-safety.js';
import { createMetadataService, type Enricher } from './metadata/service.js';
import { ScanTurns } from '../wasm-parser/index.js';
import { RecentScanTimes } from './metadata/scan-times.js';
import type { MetadataService } from './metadata/service-types.js';
import { createImageProxy } from './proxy/proxy.js';
import { createSafetyCheck, type SafetyCheck } from './safety/index.js';
import { Failover } from './store/failover.js';
import { connectRedis } from './store/redis.js';
import { FallbackRateLimitStore, MemoryRateLimitStore, type RateLimitStore } from './store/rate-limit.js';
import { RedisRateLimitStore } from './store/rate-limit-redis.js';

/**
 * Head scans taking turns at once (past their first slice): a few, so that a flood of heavy pages
 * is scanned a few at a time, each finishing, while the rest wait unread (wasm-parser/scan-turns.ts).
 * A client whose recent scans cost at most two fetch slots' worth of CPU is never held back.
 */
const ACTIVE_SCANS = 4;
const LIGHT_SCAN_COST_MS = 2 * CPU_MS_PER_SLOT;

export interface AppDeps {
  logger?: Logger;
  /** How upstream fetches resolve names and judge addresses (tests inject a resolver). */
  fetch?: SafeFetchDeps;
  /** Replaces the whole metadata pipeline (tests of the HTTP layer alone). */
  metadata?: MetadataService;
  proxy?: ImageProxy;
  /** Replaces the default enrichment steps (safety tags; image and favicon probes). */
  enrichers?: Enricher[];
  /** Resolve image and icon hosts while the head downloads (default on when images are probed). */
  prefetchImageHosts?: boolean;
  /** Replaces the known oEmbed providers (tests register providers on loopback). */
  oembedProviders?: EmbedLookupDeps['providers'];
}

export interface App {
  koa: ServiceKoa;
  health: HealthMonitor;
  metrics: Metrics;
  /** Answers already sent, by exact request target (the cached-hit fast path's store). */
  responses: ResponseStore;
  /** The request listener: cached hits answered at once (api/fast-path.ts), the rest by Koa. */
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  /** True while Redis is configured but failing (the memory stores are answering). */
  readonly degraded: boolean;
  /** Releases timers, stores and connections the app opened. */
  close(): Promise<void>;
}

export async function createApp(config: Config, deps: AppDeps = {}): Promise<App> {
  const logger = deps.logger ?? createLogger(config);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger, config.redisTimeoutMs) : null;
  const failover = redis && createFailover(config, redis, logger);

  const limiter = createRateLimitStore(config, redis, failover);
  const resolver =
    deps.fetch?.resolver ??
    new DnsResolver({
      timeoutMs: config.dnsTimeoutMs,
      servers: config.dnsServers,
      observer: {
        onQuery: (outcome, seconds) => metrics.dnsQueryDuration.observe({ outcome }, seconds),
        onCache: (result) => metrics.dnsCache.inc({ result }),
      },
    });
  const fetcher = createSafeFetch(config, { logger, ...deps.fetch, resolver });
  const sources = {
    fetchesInFlight: () => fetcher.limiter.inFlight,
    fetchesQueued: () => fetcher.limiter.queued,
    fetchesCapped: () => fetcher.limiter.capped,
  };
  const metrics = new Metrics(sources);
  const scanTimes = new RecentScanTimes();
  const health = new HealthMonitor({
    fetchSlots: fetcher.limiter,
    lookupSlots: fetcher.lookups?.scheduler ?? null,
    scans: () => scanTimes.recent(),
    redisUp: () => (failover ? !failover.degraded && redis.status === 'ready' : null),
    dns: () => ({ ...resolver.recent.totals(), degraded: resolver.recent.degraded, cachedNames: resolver.cachedNames }),
  });
  const safeFetch = instrumented(fetcher.safeFetch, metrics);
  // Safe Browsing's own API calls resolve through the same resolver, never dns.lookup.
  const apiFetch = fetchThrough(resolver);
  const safety: SafetyCheck = createSafetyCheck(config, {
    logger,
    fetch: apiFetch.fetch,
    onProviderFailure: (provider) => metrics.safetyFailures.inc({ provider }),
  });
  const embeds = embedLookup({ safeFetch, providers: deps.oembedProviders });
  const enrichers = deps.enrichers ?? [safetyEnricher(safety), imageEnricher({ safeFetch, config }), embeds.enricher];
  const metadata =
    deps.metadata ??
    createMetadataService({
      config,
      safeFetch,
      store: createExtractionStore(config, redis, failover),
      enrichers,
      onCache: (outcome) => metrics.cache.inc({ outcome }),
      embedStandsIn: embeds.standsIn,
      onEnricherError: (err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'enrichment failed'),
      // A client whose pages cost CPU to scan gets smaller shares of fetches and lookups while
      // the cost is recent (fetch/client-cost.ts).
      onScanCost: (client, cpuMs) => fetcher.chargeCpu(client, cpuMs),
      scanTimes,
      scanTurns: new ScanTurns({ maxActive: ACTIVE_SCANS, lightCost: LIGHT_SCAN_COST_MS, cost: (key) => fetcher.limiter.costs.decayed(key) }),
      // Within the client's share of lookups, and only when it has one free (fetch/lookups.ts).
      // Not when a test resolves names with its own lookup (no lookups: the resolver would ask
      // the system's nameservers).
      prefetchHost:
        config.probeImages && deps.prefetchImageHosts !== false && fetcher.lookups !== null
          ? (host, client) => fetcher.lookups?.prefetch(host, client)
          : undefined,
    });

  const responses = new ResponseStore(responseStoreOptions(config));
  const router = await createRouter(createHandlers({
      config,
      metadata,
      proxy: deps.proxy ?? createImageProxy({ safeFetch, config }),
      health,
      metrics,
      responses,
    }), {
    target: { allowPrivateNetworks: config.allowPrivateNetworks },
    showcaseLocation: showcaseLocation(config),
  });

  const koa = new ServiceKoa({ proxy: config.trustProxy, maxIpsCount: 1 });
  koa.silent = true; // every error is answered and logged by errorBoundary
  const logRequest = requestLogger(logger, (route, status, seconds) => {
    metrics.requests.inc({ route, status });
    metrics.requestDuration.observe({ route }, seconds);
  });
  koa.use(requestLog(logRequest));
  koa.use(cors);
  // Answers made per request (errors, /metrics, a metadata answer not stored) over 1 KB; stored
  // answers and static files come already compressed (api/content-coding.ts) and are skipped.
  koa.use(compress({ threshold: 1024, br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } }));
  koa.use(errorBoundary(logger));
  koa.use(rateLimit(limiter, (route) => metrics.rateLimited.inc({ route })));
  koa.use(refuseFetchLoops);
  koa.use(assetRoutes(config));
  koa.use(router);

  health.started();
  return {
    koa,
    health,
    metrics,
    responses,
    callback: () => {
      const hits = metrics.cache.labels({ outcome: 'hit' });
      return withFastPath({ responses, limiter, trustProxy: config.trustProxy, logRequest, onHit: () => hits.inc() }, koa.handOver());
    },
    get degraded() {
      return failover?.degraded ?? false;
    },
    async close() {
      limiter?.close();
      failover?.close();
      health.close();
      await metadata.close();
      safety.close();
      await fetcher.close();
      await apiFetch.close();
      if (!deps.fetch?.resolver) resolver.close();
      redis?.disconnect();
    },
  };
}

/** safeFetch with its duration and outcome counted (upstream fetch durations and outcomes). */
function instrumented(safeFetch: SafeFetch, metrics: Metrics): SafeFetch {
  return async (url, options) => {
    const done = metrics.upstreamDuration.startTimer();
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

/** One failover for the rate limiter and the cache, with Redis's PING as its background check. */
function createFailover(config: Config, redis: Redis, logger: Logger): Failover {
  return new Failover({
    deadlineMs: config.redisTimeoutMs,
    check: () => redis.ping(),
    onChange: (degraded, err) => {
      if (degraded) logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'redis failed: using memory stores');
      else logger.info('redis answers again: back on shared stores');
    },
  });
}

function createRateLimitStore(config: Config, redis: Redis | null, failover: Failover | null): RateLimitStore | null {
  if (config.rateLimitMax === 0) return null;
  // docs/SPEC.md "Limits": the block after the limit lasts as long as the window (10 s by default).
  const opts = { max: config.rateLimitMax, windowMs: config.rateLimitWindowMs, blockMs: config.rateLimitWindowMs };
  const memory = new MemoryRateLimitStore(opts);
  return redis && failover ? new FallbackRateLimitStore(new RedisRateLimitStore(redis, opts, config.redisKeyPrefix), memory, failover) : memory;
}

function createExtractionStore(config: Config, redis: Redis | null, failover: Failover | null): ExtractionStore {
  const memory = new MemoryExtractionStore({ maxEntries: config.cacheMaxEntries, maxBytes: config.cacheMaxBytes });
  return redis && failover ? new FallbackExtractionStore(new RedisExtractionStore(redis, config.redisKeyPrefix), memory, failover) : memory;
}
