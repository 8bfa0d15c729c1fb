// The asset operations alone in a Koa app on 127.0.0.1:0 (http, or https with the committed
// test certificate), plus blank test pages that load /component.js. Enough for every data-meta test;
// data-url tests use the whole service (test/helpers/service.ts).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { loadConfig } from '../../src/config.js';
import { assetOperations, type AssetOptions } from '../../src/api/asset-routes.js';
import { TEST_TLS } from '../helpers/upstream.js';

/** A page that loads the element from `componentUrl` (default: this server's /component.js). */
export function testPageHtml(componentUrl = '/component.js', body = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element test</title>
<style>body{margin:24px;font-family:sans-serif;background:Canvas;color:CanvasText}linkpeek-preview{margin:0 0 16px}</style>
<script type="module" src="${componentUrl}"></script></head><body>${body}</body></html>`;
}

export interface AssetServer {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startAssetServer(
  options: AssetOptions & { tls?: boolean; pages?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<AssetServer> {
  const app = new Koa();
  const assets = assetOperations(loadConfig(options.env ?? {}), options);
  // The service's route table matches these paths from openapi.yaml; this harness names them.
  const byPath: Record<string, (ctx: Koa.Context, next: Koa.Next) => unknown> = {
    '/component.js': assets.getComponent,
    '/linkpeek-preview.css': assets.getReserveStylesheet,
    '/favicon.ico': assets.getFavicon,
    '/': assets.getShowcase,
  };
  app.use(async (ctx, next) => {
    const asset = ctx.path === '/docs' || ctx.path.startsWith('/docs/') ? assets.getDocsFile : byPath[ctx.path];
    if (asset === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    try {
      await asset(ctx, next);
    } catch {
      ctx.status = 404; // a file the build lacks
    }
  });
  app.use(async (ctx, next) => {
    const page = ctx.path === '/test-page' ? testPageHtml() : options.pages?.[ctx.path];
    if (page === undefined) return next();
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  const server = options.tls ? https.createServer(TEST_TLS, app.callback()) : http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
