// One handler per operationId of openapi.yaml, each thin: read the validated query, call the
// service, set the spec's headers (docs/SPEC.md "Endpoints").

import { readFileSync } from 'node:fs';
import type { Context } from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import type { Config } from '../config.js';
import type { GetMetadataData, ProxyImageData } from '../../generated/types.gen.js';
import type { HealthMonitor } from '../health.js';
import type { Metrics } from '../metrics.js';
import { parseTarget } from '../fetch/target.js';
import type { MetadataService } from '../metadata/service-types.js';
import type { ResponseStore } from '../cache/response-store.js';
import { sendAnswer } from './cached-answer.js';
import { clientIp } from './client-ip.js';
import { OPENAPI_PATH } from '../package-root.js';
import type { Operations } from './router.js';
import { ServerTiming } from './server-timing.js';
import { StaticAsset } from '../assets/static-asset.js';
import { ProxyTrust } from '../trusted-proxies.js';

/** Answers `ctx` with the image at `target`, fetched on behalf of the client at IP `client`. */
export type ImageProxy = (ctx: Context, target: URL, client?: string) => Promise<void>;

/** The client's IP as the rate limiter saw it (api/rate-limit.ts): fetch slots are shared per client. */
function requestingClient(ctx: Context, trust: ProxyTrust): string {
  return (ctx.state.clientIp as string | undefined) ?? clientIp(ctx.req, trust);
}

export interface HandlerDeps {
  config: Config;
  metadata: MetadataService;
  proxy: ImageProxy;
  health: HealthMonitor;
  metrics: Metrics;
  /** Where answers are kept to be answered again (api/cached-answer.ts). */
  responses: ResponseStore;
}

export function createHandlers({ config, metadata, proxy, health, metrics, responses }: HandlerDeps): Operations {
  const targetOptions = { allowPrivateNetworks: config.allowPrivateNetworks };
  const trust = new ProxyTrust(config.trustProxy);
  // Loaded (and compressed, when the build has no forms of it) while the service starts.
  const openapiDocument = StaticAsset.load(readFileSync(OPENAPI_PATH), { type: 'application/yaml; charset=utf-8', cacheControl: 'public, max-age=3600' });

  return {
    async getMetadata(c: ApiContext, ctx: Context) {
      const query = c.request.query as unknown as Required<NonNullable<GetMetadataData['query']>>;
      const target = parseTarget(query.url, targetOptions);
      // allow_fallback is reserved and has no effect (docs/SPEC.md).
      const timing = new ServerTiming();
      try {
        const answer = await metadata.get(target, query.prefer ?? 'og', requestingClient(ctx, trust), timing);
        sendAnswer(ctx, responses, answer.metadata, answer.expiresAt);
      } finally {
        // A 422 tells how long its failed fetch took, too.
        ctx.set('Server-Timing', timing.header());
      }
    },

    async proxyImage(c: ApiContext, ctx: Context) {
      const query = c.request.query as unknown as NonNullable<ProxyImageData['query']>;
      const target = parseTarget(query.url, targetOptions);
      await proxy(ctx, target, requestingClient(ctx, trust));
    },

    getHealth(_c: ApiContext, ctx: Context) {
      const report = health.report();
      ctx.status = report.status === 'stopping' ? 503 : 200;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = report;
    },

    async getMetrics(_c: ApiContext, ctx: Context) {
      ctx.set('Cache-Control', 'no-store');
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    },

    async getOpenApiDocument(_c: ApiContext, ctx: Context) {
      (await openapiDocument).send(ctx);
    },
  };
}
