// GET /component.js, GET /linkpeek-preview.css (the element's height reserve, built beside it),
// GET /, GET /favicon.ico and GET /docs with its files: the operations of openapi.yaml answered
// from files (src/assets/). Which request reaches which is the route table's to say (router.ts).
import type { Context } from 'koa';
import path from 'node:path';
import type { Config } from '../config.js';
import { NotFound } from '../errors.js';
import type { Step } from './route.js';
import { componentBundle, DEFAULT_BUNDLE_PATH } from '../assets/component-bundle.js';
import { DOCS_CSP, docsAssets } from '../assets/docs.js';
import { faviconIco } from '../assets/favicon.js';
import { SHOWCASE_CSP, showcaseHtml } from '../assets/showcase-page.js';
import { StaticAsset } from '../assets/static-asset.js';

/** The bundle and the icon may change with each deploy; an hour bounds how long a stale copy lives (openapi.yaml). */
const BUNDLE_CACHE_CONTROL = 'public, max-age=3600';
const SHOWCASE_CACHE_CONTROL = 'public, max-age=300';

export interface AssetOptions {
  /** Where the built component.js is; tests point it at a missing file. */
  bundlePath?: string;
}

/** The operations of openapi.yaml answered from files, by operationId. */
export interface AssetOperations {
  getComponent: Step;
  getReserveStylesheet: Step;
  getShowcase: Step;
  getDocs: Step;
  getDocsWithSlash: Step;
  getDocsFile: Step;
  getFavicon: Step;
}

/**
 * The handlers of the static operations: the last step of each one's chain in the route table
 * (api/router.ts), which matched the request's path and method (GET or HEAD) already.
 */
export function assetOperations(config: Config, options: AssetOptions = {}): AssetOperations {
  const bundlePath = options.bundlePath ?? DEFAULT_BUNDLE_PATH;
  const bundle = componentBundle(bundlePath);
  const reserveCss = componentBundle(path.join(path.dirname(bundlePath), 'linkpeek-preview.css'));
  const showcase = showcaseHtml(config.showcaseUrl);
  const docs = docsAssets();
  let component: { bytes: Buffer; asset: Promise<StaticAsset> } | null = null;
  let reserveAsset: { bytes: Buffer; asset: Promise<StaticAsset> } | null = null;
  const favicon = StaticAsset.load(faviconIco(), { type: 'image/x-icon', cacheControl: BUNDLE_CACHE_CONTROL });

  async function docsFile(ctx: Context): Promise<void> {
    const asset = await docs(ctx.path);
    // Not one of the files (openapi.yaml's enum), or not built: 404, never a bad parameter.
    if (!asset) throw new NotFound(ctx.path);
    ctx.set('Content-Security-Policy', DOCS_CSP);
    asset.send(ctx);
  }

  return {
    getDocs: docsFile,
    getDocsWithSlash: docsFile,
    getDocsFile: docsFile,

    async getComponent(ctx) {
      const bytes = await bundle.read();
      // A module script from another origin needs CORS; set here too so the element loads even
      // if it is served without the app's CORS middleware.
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
    },

    async getFavicon(ctx) {
      (await favicon).send(ctx);
    },

    async getReserveStylesheet(ctx) {
      const bytes = await reserveCss.read();
      if (!bytes) throw new NotFound(ctx.path);
      ctx.set('Access-Control-Allow-Origin', '*');
      if (reserveAsset?.bytes !== bytes)
        reserveAsset = { bytes, asset: StaticAsset.load(bytes, { type: 'text/css; charset=utf-8', cacheControl: BUNDLE_CACHE_CONTROL }) };
      (await reserveAsset.asset).send(ctx);
    },

    getShowcase(ctx) {
      ctx.set('Cache-Control', SHOWCASE_CACHE_CONTROL);
      ctx.set('Content-Security-Policy', SHOWCASE_CSP);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = showcase;
    },
  };
}
