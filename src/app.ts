// createApp(config, deps): the Koa app and the order of its middleware. Stores and fetchers are
// passed in; only src/main.ts listens; tests build the app with their own deps and listen on
// port 0.

import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import compress from 'koa-compress';
import zlib from 'node:zlib';
import type { Config } from './config.js';
import { cors } from './api/cors.js';
import { assetRoutes } from './assets/routes.js';
import { errorBoundary } from './api/error-boundary.js';
import { refuseFetchLoops } from './api/fetch-loop.js';
import { createHandlers, type ImageProxy } from './api/handlers.js';
import { rateLimit } from './api/rate-limit.js';
import { clientConcurrency } from './api/client-concurrency.js';
import { clientPace } from './api/client-pace.js';
import { cachedAnswers } from './api/cached-answer.js';
import { requestLog, requestLogger } from './api/request-log.js';
import { createRouter } from './api/router.js';
import { showcaseLocation } from './api/showcase-location.js';
import { createEngine, type EngineDeps } from './engine/engine.js';
import { HealthMonitor } from './health.js';
import { createLogger } from './log.js';
import { Metrics } from './metrics.js';
import type { ResponseStore } from './cache/response-store.js';
import { createCacheStores } from './cache/stores.js';
import type { CloseOptions } from './fetch/fetcher.js';
import { createImageProxy } from './proxy/proxy.js';
import { createSharedStores } from './store/shared-stores.js';
import { ProxyTrust } from './trusted-proxies.js';

/** The engine's replaceable parts (tests inject a resolver, enrichers, oEmbed providers, a pipeline). */
export interface AppDeps extends Omit<EngineDeps, 'store' | 'hooks'> {
  proxy?: ImageProxy;
}

export interface App {
  koa: Koa;
  health: HealthMonitor;
  metrics: Metrics;
  /** Answers already sent, by exact request target (answered again by api/cached-answer.ts). */
  responses: ResponseStore;
  /** The request listener: Koa's. */
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  /** True while Redis is configured but failing (the memory stores are answering). */
  readonly degraded: boolean;
  /** Releases timers, stores and connections the app opened; `cut` ends upstream fetches in flight at once. */
  close(options?: CloseOptions): Promise<void>;
}

export async function createApp(config: Config, deps: AppDeps = {}): Promise<App> {
  const logger = deps.logger ?? createLogger(config);
  const shared = await createSharedStores(config, logger);
  const { limiter } = shared;
  const { extractions, responses } = createCacheStores(config, shared.redis, shared.cacheFailover, deps.now);
  const engine = createEngine(config, {
    ...deps,
    logger,
    store: extractions,
    shedLoad: true,
    hooks: {
      onDnsQuery: (outcome, seconds) => metrics.dnsQueryDuration.observe({ outcome }, seconds),
      onDnsCache: (result) => metrics.dnsCache.inc({ result }),
      onCache: (outcome) => metrics.cache.inc({ outcome }),
      onSafetyFailure: (provider) => metrics.safetyFailures.inc({ provider }),
      timeFetch: () => metrics.upstreamDuration.startTimer(),
    },
  });
  // The scan threads start beside the rest of the set-up; the first request finds them ready.
  await engine.scanner.ready;
  const { fetcher, resolver, safeFetch, metadata } = engine;
  const sources = {
    fetchesInFlight: () => fetcher.limiter.inFlight,
    fetchesQueued: () => fetcher.limiter.queued,
    fetchesCapped: () => fetcher.limiter.capped,
  };
  const metrics = new Metrics(sources);
  const health = new HealthMonitor({
    fetchSlots: fetcher.limiter,
    lookupSlots: fetcher.lookups.scheduler,
    scans: () => engine.scanTimes.recent(),
    scanSlots: engine.scanner.queue,
    shedding: engine.shedder ? () => engine.shedder!.stats() : null,
    redisUp: () => shared.redisUp(),
    dns: () => ({ ...resolver.recent.totals(), degraded: resolver.recent.degraded, cachedNames: resolver.cachedNames }),
  });

  const router = await createRouter(
    createHandlers({
      config,
      metadata,
      proxy: deps.proxy ?? createImageProxy({ safeFetch, config }),
      health,
      metrics,
      responses,
    }),
    {
      target: { allowPrivateNetworks: config.allowPrivateNetworks },
      showcaseLocation: showcaseLocation(config),
    },
  );

  // Koa's own reading of X-Forwarded-* (ctx.ip, ctx.host) is left off: api/client-ip.ts and
  // api/showcase-location.ts read them, for the proxies TRUST_PROXY trusts only.
  const koa = new Koa();
  koa.silent = true; // every error is answered and logged by errorBoundary
  const hits = metrics.cache.labels({ outcome: 'hit' });
  const logRequest = requestLogger(logger, (route, status, seconds) => {
    metrics.requests.inc({ route, status });
    metrics.requestDuration.observe({ route }, seconds);
  });
  koa.use(requestLog(logRequest));
  koa.use(cors);
  // Answers made per request (errors, /metrics, a metadata answer not stored) over 1 KB; stored
  // answers and static files come already compressed (content-coding.ts) and are skipped.
  koa.use(compress({ threshold: 1024, br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } }));
  koa.use(errorBoundary(logger));
  const trust = new ProxyTrust(config.trustProxy);
  koa.use(clientPace(config, trust));
  koa.use(clientConcurrency(config.maxRequestsInFlightPerClient, trust));
  koa.use(rateLimit(limiter, trust, (route) => metrics.rateLimited.inc({ route })));
  koa.use(refuseFetchLoops);
  koa.use(cachedAnswers(responses, () => hits.inc()));
  koa.use(assetRoutes(config));
  koa.use(router);

  health.started();
  return {
    koa,
    health,
    metrics,
    responses,
    callback: () => koa.callback(),
    get degraded() {
      return shared.redisUp() === false;
    },
    async close(options) {
      health.close();
      await engine.close(options);
      extractions.close?.();
      shared.close();
    },
  };
}
