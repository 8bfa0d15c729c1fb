// GET /component.js, GET /linkpeek-preview.css (the element's height reserve, built beside it),
// GET /, GET /favicon.ico and GET /docs with its files. Everything else passes to next().
import type Koa from 'koa';
import path from 'node:path';
import type { Config } from '../config.js';
import { NotFound } from '../errors.js';
import { PATHS } from '../paths.js';
import { componentBundle, DEFAULT_BUNDLE_PATH } from './component-bundle.js';
import { DOCS_CSP, docsAssets } from './docs.js';
import { faviconIco } from './favicon.js';
import { SHOWCASE_CSP, showcaseHtml } from './showcase-page.js';
import { StaticAsset } from './static-asset.js';

/** The bundle and the icon may change with each deploy; an hour bounds how long a stale copy lives (openapi.yaml). */
const BUNDLE_CACHE_CONTROL = 'public, max-age=3600';
const SHOWCASE_CACHE_CONTROL = 'public, max-age=300';

export interface AssetOptions {
  /** Where the built component.js is; tests point it at a missing file. */
  bundlePath?: string;
}

export function assetRoutes(config: Config, options: AssetOptions = {}): Koa.Middleware {
  const bundlePath = options.bundlePath ?? DEFAULT_BUNDLE_PATH;
  const bundle = componentBundle(bundlePath);
  const reserveCss = componentBundle(path.join(path.dirname(bundlePath), 'linkpeek-preview.css'));
  const showcase = showcaseHtml(config.showcaseUrl);
  const docs = docsAssets();
  let component: { bytes: Buffer; asset: Promise<StaticAsset> } | null = null;
  let reserveAsset: { bytes: Buffer; asset: Promise<StaticAsset> } | null = null;
  const favicon = StaticAsset.load(faviconIco(), { type: 'image/x-icon', cacheControl: BUNDLE_CACHE_CONTROL });

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();

    if (ctx.path === '/docs' || ctx.path.startsWith('/docs/')) {
      const asset = await docs(ctx.path);
      // Not one of the files (openapi.yaml's enum), or not built: 404, before the router would
      // call the name a bad parameter.
      if (!asset) throw new NotFound(ctx.path);
      ctx.set('Content-Security-Policy', DOCS_CSP);
      asset.send(ctx);
      return;
    }

    if (ctx.path === '/component.js') {
      const bytes = await bundle.read();
      // A module script from another origin needs CORS; set here too so the element loads even
      // if this middleware is mounted before the CORS one.
      ctx.set('Access-Control-Allow-Origin', '*');
      if (!bytes) {
        ctx.status = 503;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { code: 503, message: 'component.js is not built; run npm run build:element' };
        return;
      }
      if (component?.bytes !== bytes)
        component = { bytes, asset: StaticAsset.load(bytes, { type: 'application/javascript; charset=utf-8', cacheControl: BUNDLE_CACHE_CONTROL }) };
      (await component.asset).send(ctx);
      return;
    }

    if (ctx.path === PATHS.favicon) {
      (await favicon).send(ctx);
      return;
    }

    if (ctx.path === '/linkpeek-preview.css') {
      const bytes = await reserveCss.read();
      if (!bytes) return next();
      ctx.set('Access-Control-Allow-Origin', '*');
      if (reserveAsset?.bytes !== bytes)
        reserveAsset = { bytes, asset: StaticAsset.load(bytes, { type: 'text/css; charset=utf-8', cacheControl: BUNDLE_CACHE_CONTROL }) };
      (await reserveAsset.asset).send(ctx);
      return;
    }

    if (ctx.path === '/') {
      ctx.set('Cache-Control', SHOWCASE_CACHE_CONTROL);
      ctx.set('Content-Security-Policy', SHOWCASE_CSP);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = showcase;
      return;
    }

    return next();
  };
}
