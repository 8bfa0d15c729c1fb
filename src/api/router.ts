// openapi-backend in front of the handlers: it matches the operation and validates and coerces
// the query against openapi.yaml, the same document the SDK is generated from, so server
// and clients share one contract. Settings that are off by default are switched on here.

import type { Context } from 'koa';
import { OpenAPIBackend, type Context as ApiContext, type Request as ApiRequest } from 'openapi-backend';
import addFormatsModule from 'ajv-formats';
import { MethodNotAllowed, NotFound } from '../errors.js';
import { routerDefinition } from '../package-root.js';
import type { TargetOptions } from '../fetch/target.js';
import { nearMissWarning, WARNING_HEADER } from './near-miss.js';
import { operationTable } from './operation-table.js';
import type { ShowcaseRequest } from './showcase-location.js';
import { invalid, isMissingUrl, problemsOf } from './validation.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped in `default`.
type AddFormats = (ajv: unknown, formats: string[]) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

/** Every operation of openapi.yaml is a GET. */
const GET_ONLY = ['GET', 'HEAD'];

type KoaHandler = (api: ApiContext, ctx: Context) => Promise<void> | void;

export interface Operations {
  getMetadata: KoaHandler;
  proxyImage: KoaHandler;
  getOpenApiDocument: KoaHandler;
  getHealth: KoaHandler;
  getMetrics: KoaHandler;
}

export interface RouterOptions {
  target: TargetOptions;
  /** Where a metadata request without `url` is sent (the 302's Location, api/showcase-location.ts). */
  showcaseLocation: (request: ShowcaseRequest) => string;
}

/**
 * How openapi-backend validates. Each of these is off by default in openapi-backend 5.21: without
 * them handlers get "false" strings and no defaults, hear only the first error, ignore `format: uri`
 * and are reached by invalid requests.
 */
export const VALIDATION_OPTIONS = {
  strict: true,
  validate: true,
  coerceTypes: true,
  ajvOpts: { useDefaults: true, allErrors: true },
  customizeAjv: <A>(ajv: A): A => {
    addFormats(ajv, ['uri', 'date-time']);
    return ajv;
  },
} as const;

export async function createRouter(operations: Operations, options: RouterOptions) {
  // quick: openapi.yaml is not validated against the OpenAPI schema at every start (that is a
  // test's job: test/api/routes.test.ts) and validators compile on first use. The start-up check
  // would compile the whole OpenAPI 3.1 meta-schema: about 0.4 s of blocked event loop and ~35 MB
  // of resident memory the process keeps.
  //
  // ignoreTrailingSlashes off: each operation has exactly one path, the one in openapi.yaml, and
  // that path with a trailing slash is an unknown path (404), as is one with a doubled leading
  // slash. Otherwise a second spelling reaches the operation past every piece that knows it by
  // its path (the rate limit, the cached answers, the declared query names) and a CDN keeps two
  // copies of each answer.
  const api = new OpenAPIBackend({ definition: routerDefinition(), ...VALIDATION_OPTIONS, quick: true, ignoreTrailingSlashes: false });
  await api.init();
  const table = operationTable(api.getOperations());
  // The methods each documented path answers, for the 405's Allow; HEAD wherever GET is.
  const allowed = new Map<string, string[]>();
  for (const op of api.getOperations()) {
    const methods = allowed.get(op.path) ?? [];
    methods.push(op.method.toUpperCase());
    if (op.method === 'get') methods.push('HEAD');
    allowed.set(op.path, methods);
  }

  function validationFail(c: ApiContext, ctx: Context): void {
    const errors = c.validation.errors ?? [];
    if (c.operation.operationId === 'getMetadata' && isMissingUrl(errors)) {
      const prefer = ctx.query.prefer;
      ctx.redirect(options.showcaseLocation({ req: ctx.req, prefer: typeof prefer === 'string' ? prefer : undefined }));
      // No shared cache may keep it: without PUBLIC_BASE_URL it names the Host this client sent
      // (a forged one must reach nobody else), and a later deploy may change the showcase.
      ctx.set('Cache-Control', 'no-store');
      // docs/SPEC.md: the 302 has no body (Koa's redirect writes a line of text).
      ctx.body = '';
      ctx.remove('Content-Type');
      return;
    }
    throw invalid(problemsOf(errors, c.request.query as Record<string, unknown>, options.target));
  }

  /**
   * What openapi-backend's handleRequest does for this document (no security schemes, no
   * pre- or post-handlers), through its public parts: match, validate and coerce, then the
   * operation's handler. The component, the showcase and the docs are served by the asset
   * routes in front of the router (src/assets/routes.ts) and have no handler here: what reaches
   * them is a file they lack, a 404.
   */
  async function dispatch(request: ApiRequest, ctx: Context): Promise<void> {
    const matched = table.match(request.method.toLowerCase(), request.path);
    if ('missing' in matched) {
      if (matched.missing === 'methodNotAllowed') throw new MethodNotAllowed(ctx.method, ctx.path, allowed.get(ctx.path) ?? GET_ONLY);
      throw new NotFound(ctx.path);
    }
    const { operation } = matched;
    const validation = api.validateRequest(request, operation);
    // The request as sent names the problems of an invalid one; a valid one is handled coerced.
    const parsed = api.router.parseRequest(validation.errors ? request : validation.coerced, operation);
    const c = { api, operation, validation, request: parsed } as ApiContext;
    if (validation.errors) return validationFail(c, ctx);
    const handler = (operations as unknown as Record<string, KoaHandler | undefined>)[operation.operationId ?? ''];
    if (handler === undefined) throw new NotFound(ctx.path);
    await handler(c, ctx);
  }

  // Unknown query parameters are tolerated (utm tags happen) but openapi-backend's
  // schema forbids them, so each operation only sees its declared ones; one a typo away from a
  // declared one is named in a response header (near-miss.ts).
  const declared = new Map<string, ReadonlySet<string>>();
  for (const op of api.getOperations()) {
    const names = (op.parameters ?? []).map((p) => ('name' in p && p.in === 'query' ? p.name : '')).filter(Boolean);
    declared.set(op.path, new Set(names));
  }

  return async function route(ctx: Context): Promise<void> {
    const known = declared.get(ctx.path);
    const query: Record<string, string | string[]> = {};
    if (known) {
      for (const [key, value] of Object.entries(ctx.query)) if (known.has(key) && value !== undefined) query[key] = value;
      const warning = known.size > 0 ? nearMissWarning(Object.keys(ctx.query), known) : null;
      if (warning !== null) ctx.set(WARNING_HEADER, warning);
    }
    // HEAD is answered like GET; Koa drops the body.
    await dispatch({ method: ctx.method === 'HEAD' ? 'GET' : ctx.method, path: ctx.path, query, headers: ctx.headers as Record<string, string> }, ctx);
  };
}
