// createApp(config, deps): the Koa app and the order of its middleware. Stores and fetchers are
// passed in; only src/main.ts listens; tests build the app with their own deps and listen on
// port 0.

import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import compress from 'koa-compress';
import zlib from 'node:zlib';
import type { Config } from './config.js';
import { cors } from './api/cors.js';
import { assetOperations } from './api/asset-routes.js';
import { errorBoundary } from './api/error-boundary.js';
import { createHandlers, type ImageProxy } from './api/handlers.js';
import { identifyClient, rateLimit } from './api/rate-limit.js';
import { clientConcurrency } from './api/client-concurrency.js';
import { clientPace } from './api/client-pace.js';
import { cachedAnswers } from './api/cached-answer.js';
import { requestLog, requestLogger } from './api/request-log.js';
import { createRouter, type Router } from './api/router.js';
import { routeOf } from './api/route.js';
import { shedDoor } from './api/shed-door.js';
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
  /** The route table: each operation's chain (api/router.ts). */
  routes: Router;
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

  const hits = metrics.cache.labels({ outcome: 'hit' });
  const trust = new ProxyTrust(config.trustProxy);
  const router = await createRouter(
    createHandlers({
      config,
      metadata,
      proxy: deps.proxy ?? createImageProxy({ safeFetch, config, admit: engine.shedder ? (client) => engine.shedder!.admit(client) : undefined }),
      health,
      metrics,
      responses,
    }),
    assetOperations(config),
    {
      shedDoor: shedDoor(engine.shedder),
      rateLimit: rateLimit(limiter, (ctx, client) => {
        metrics.rateLimited.inc({ route: routeOf(ctx).label });
        // A client blocked still asks: it weighs as much as ever when the shedder ranks clients.
        engine.shedder?.limited(client.key);
      }),
      cachedAnswer: cachedAnswers(responses, () => hits.inc()),
    },
    {
      target: { allowPrivateNetworks: config.allowPrivateNetworks },
      showcaseLocation: showcaseLocation(config),
      publicMetrics: config.metricsPort === null && config.metricsPublic,
    },
  );

  // Koa's own reading of X-Forwarded-* (ctx.ip, ctx.host) is left off: api/client-ip.ts and
  // api/showcase-location.ts read them, for the proxies TRUST_PROXY trusts only.
  const koa = new Koa();
  koa.silent = true; // every error is answered and logged by errorBoundary
  const logRequest = requestLogger(logger, (route, status, seconds) => {
    metrics.requests.inc({ route, status });
    metrics.requestDuration.observe({ route }, seconds);
  });
  // The route is matched first: the log, the error boundary and the chain read it (api/router.ts).
  koa.use(router.match);
  koa.use(requestLog(logRequest));
  koa.use(cors);
  // Answers made per request (errors, /metrics, a metadata answer not stored) over 1 KB; stored
  // answers and static files come already compressed (content-coding.ts) and are skipped.
  koa.use(compress({ threshold: 1024, br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } }));
  koa.use(errorBoundary(logger));
  // The client is named once (its X-Forwarded-For parsed once), for the pace, the count in flight
  // and the rate limit: naming it in each again was a fifth of a 429's CPU (bench/refusal-cost.ts).
  koa.use(identifyClient(trust));
  koa.use(clientPace(config));
  koa.use(clientConcurrency(config.maxRequestsInFlightPerClient));
  // The matched operation's chain: the door past capacity, rate limit, cached answer, validation, handler, as declared.
  koa.use(router.run);

  // The scan threads started with the engine, beside the rest of the set-up above; the service
  // listens once they are up, so the first request finds them ready.
  await engine.scanner.ready;
  health.started();
  return {
    koa,
    health,
    metrics,
    responses,
    routes: router,
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
