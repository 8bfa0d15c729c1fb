// The route table: every operation of openapi.yaml, the static files included, with its chain
// declared in one place (rate limit, cached answer, validation, handler, error surface). A request
// is matched once, by the first middleware (src/app.ts), as openapi-backend's router matches
// (api/operation-table.ts); the steps every request takes read the match (api/route.ts), and the
// last one runs the matched chain. No other module looks at the path. Validation is
// openapi-backend's, against the same document the SDK is generated from, so server and clients
// share one contract; settings that are off by default are switched on here.

import type { Context, Next } from 'koa';
import { OpenAPIBackend, type Context as ApiContext, type Operation } from 'openapi-backend';
import addFormatsModule from 'ajv-formats';
import { MethodNotAllowed, NotFound, type ErrorSurface } from '../errors.js';
import { routerDefinition } from '../package-root.js';
import { API_PREFIX } from '../paths.js';
import type { TargetOptions } from '../fetch/target.js';
import type { AssetOperations } from './asset-routes.js';
import { nearMissWarning, WARNING_HEADER } from './near-miss.js';
import { operationTable } from './operation-table.js';
import type { Route, Step } from './route.js';
import type { ShowcaseRequest } from './showcase-location.js';
import { refuseFetchLoops } from './fetch-loop.js';
import { invalid, isMissingUrl, problemsOf } from './validation.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped in `default`.
type AddFormats = (ajv: unknown, formats: string[]) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

/** Every operation of openapi.yaml is a GET. */
const GET_ONLY = ['GET', 'HEAD'];

type KoaHandler = (api: ApiContext, ctx: Context) => Promise<void> | void;

/** The handlers of the operations that read a validated query (api/handlers.ts). */
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
  /** /metrics is answered on the public port (Config: no METRICS_PORT, METRICS_PUBLIC on); else it is a 404 there. */
  publicMetrics: boolean;
}

/** The steps the table puts in chains, made by src/app.ts from the app's stores. */
export interface RouteSteps {
  /** Refuses, past capacity, a request of a client the instance is refusing, before it is counted (api/shed-door.ts). */
  shedDoor: Step;
  /** Counts the request in its client's budget (api/rate-limit.ts). */
  rateLimit: Step;
  /** Answers a stored answer (api/cached-answer.ts). */
  cachedAnswer: Step;
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

/** One operation's chain, as the table declares it. */
interface Chain {
  surface?: ErrorSurface;
  /** Steps of every request to the operation's path, whatever its method (a 405 takes them too). */
  guards?: Step[];
  /** The operation's own steps, ending with its handler. */
  steps: Step[];
}

export interface Router {
  /** The first middleware: matches the request once and keeps the route on it (api/route.ts). */
  match: (ctx: Context, next: Next) => Promise<void>;
  /** The last middleware: runs the matched route's chain. */
  run: (ctx: Context, next: Next) => Promise<void>;
  /** An operation's chain, by operationId (tests insert a step to see what a request reaches). */
  steps(operationId: string): Step[];
}

export async function createRouter(operations: Operations, assets: AssetOperations, stepsOf: RouteSteps, options: RouterOptions): Promise<Router> {
  // quick: openapi.yaml is not validated against the OpenAPI schema at every start (that is a
  // test's job: test/api/routes.test.ts) and validators compile on first use. The start-up check
  // would compile the whole OpenAPI 3.1 meta-schema: about 0.4 s of blocked event loop and ~35 MB
  // of resident memory the process keeps.
  //
  // ignoreTrailingSlashes off: each operation has exactly one path, the one in openapi.yaml, and
  // that path with a trailing slash is an unknown path (404), as is one with a doubled leading
  // slash. Otherwise a second spelling reaches the operation past every step of its chain (the
  // rate limit, the cached answers, the declared query names) and a CDN keeps two copies of each
  // answer.
  const api = new OpenAPIBackend({ definition: routerDefinition(), ...VALIDATION_OPTIONS, quick: true, ignoreTrailingSlashes: false });
  await api.init();
  // Read once: openapi-backend builds new objects at each call, and routes are kept by operation.
  const documentOperations = api.getOperations();
  const validated = validation(api, documentOperations, options);
  const handle =
    (handler: KoaHandler): Step =>
    (ctx) =>
      handler(ctx.state.api as ApiContext, ctx);
  const { shedDoor, rateLimit, cachedAnswer } = stepsOf;

  // The table. HEAD is answered like GET (Koa drops the body); OPTIONS is answered by the CORS
  // middleware before any chain runs.
  const table: Record<string, Chain> = {
    getMetadata: {
      guards: [shedDoor, rateLimit, refuseFetchLoops],
      steps: [cachedAnswer, validated({ withoutUrl: options.showcaseLocation }), handle(operations.getMetadata)],
    },
    proxyImage: { surface: 'proxy', guards: [shedDoor, rateLimit, refuseFetchLoops], steps: [validated(), handle(operations.proxyImage)] },
    getOpenApiDocument: { steps: [validated(), handle(operations.getOpenApiDocument)] },
    getHealth: { steps: [validated(), handle(operations.getHealth)] },
    // With METRICS_PORT, metrics are served only on that listener (src/metrics-server.ts); on the
    // public port only when the operator asked for it.
    getMetrics: { steps: options.publicMetrics ? [validated(), handle(operations.getMetrics)] : [notFound] },
    // Files: no query to read, nothing counted.
    getComponent: { steps: [assets.getComponent] },
    getReserveStylesheet: { steps: [assets.getReserveStylesheet] },
    getShowcase: { steps: [assets.getShowcase] },
    getDocs: { steps: [assets.getDocs] },
    getDocsWithSlash: { steps: [assets.getDocsWithSlash] },
    getDocsFile: { steps: [assets.getDocsFile] },
    getFavicon: { steps: [assets.getFavicon] },
  };

  const routes = new Map<Operation, Route>();
  const wrongMethod = new Map<Operation, Route>();
  const allowed = allowedMethods(documentOperations);
  for (const op of documentOperations) {
    const chain = table[op.operationId ?? ''];
    // Every operation of the document has a chain, and every chain an operation (below).
    if (chain === undefined) throw new Error(`openapi.yaml's ${op.method.toUpperCase()} ${op.path} (${op.operationId}) has no chain in the route table`);
    const label = op.path.includes('{') ? 'other' : op.path;
    const surface = chain.surface ?? 'metadata';
    const guards = chain.guards ?? [];
    routes.set(op, { operation: op, label, surface, steps: [...guards, ...chain.steps] });
    wrongMethod.set(op, { operation: null, label, surface, steps: [...guards, methodNotAllowed(allowed.get(op.path) ?? GET_ONLY)] });
  }
  const documented = new Set(documentOperations.map((op) => op.operationId));
  for (const id of Object.keys(table)) if (!documented.has(id)) throw new Error(`the route table's ${id} is not an operation of openapi.yaml`);
  // An unknown path under the versioned API is still refused when it comes from ourselves.
  const unknownApi: Route = { operation: null, label: 'other', surface: 'metadata', steps: [refuseFetchLoops, notFound] };
  const unknown: Route = { operation: null, label: 'other', surface: 'metadata', steps: [notFound] };
  const operationsTable = operationTable(documentOperations);

  function routeFor(method: string, path: string): Route {
    const matched = operationsTable.match(method === 'HEAD' ? 'get' : method.toLowerCase(), path);
    if ('operation' in matched) return routes.get(matched.operation)!;
    if (matched.missing === 'methodNotAllowed') return wrongMethod.get(matched.at)!;
    return path.startsWith(API_PREFIX) ? unknownApi : unknown;
  }

  return {
    match: function match(ctx, next) {
      ctx.state.route = routeFor(ctx.method, ctx.path);
      return next();
    },
    run: function run(ctx, next) {
      return runSteps((ctx.state.route as Route).steps, ctx, next);
    },
    steps(operationId) {
      for (const [op, route] of routes) if (op.operationId === operationId) return route.steps;
      throw new Error(`no operation ${operationId}`);
    },
  };
}

/** `steps` in order, each given the next as its `next`; the last one's `next` is `next`. */
function runSteps(steps: readonly Step[], ctx: Context, next: Next): Promise<void> {
  let at = 0;
  const step = async (): Promise<void> => {
    const current = steps[at++];
    return current === undefined ? next() : current(ctx, step);
  };
  return step();
}

function notFound(ctx: Context): never {
  throw new NotFound(ctx.path);
}

function methodNotAllowed(allow: string[]): Step {
  return function methodNotAllowed(ctx) {
    throw new MethodNotAllowed(ctx.method, ctx.path, allow);
  };
}

/** The methods each documented path answers, for the 405's Allow; HEAD wherever GET is. */
function allowedMethods(operations: Operation[]): Map<string, string[]> {
  const allowed = new Map<string, string[]>();
  for (const op of operations) {
    const methods = allowed.get(op.path) ?? [];
    methods.push(op.method.toUpperCase());
    if (op.method === 'get') methods.push('HEAD');
    allowed.set(op.path, methods);
  }
  return allowed;
}

/**
 * The validation step: what openapi-backend's handleRequest does for this document (no security
 * schemes, no pre- or post-handlers) through its public parts, validate and coerce, for the
 * operation the table matched; the handler step after it finds openapi-backend's context in
 * ctx.state.api. Unknown query parameters are tolerated (utm tags happen) but openapi-backend's
 * schema forbids them, so each operation only sees its declared ones; one a typo away from a
 * declared one is named in a response header (near-miss.ts).
 */
function validation(api: OpenAPIBackend, operations: Operation[], options: RouterOptions) {
  const declared = new Map<Operation, ReadonlySet<string>>();
  for (const op of operations) {
    const names = (op.parameters ?? []).map((p) => ('name' in p && p.in === 'query' ? p.name : '')).filter(Boolean);
    declared.set(op, new Set(names));
  }

  /** `withoutUrl`: a request whose only problem is a missing `url` is sent there (302) instead of a 400. */
  return (answers: { withoutUrl?: (request: ShowcaseRequest) => string } = {}): Step =>
    function validated(ctx, next) {
      const operation = (ctx.state.route as Route).operation!;
      const known = declared.get(operation)!;
      const query: Record<string, string | string[]> = {};
      for (const [key, value] of Object.entries(ctx.query)) if (known.has(key) && value !== undefined) query[key] = value;
      const warning = known.size > 0 ? nearMissWarning(Object.keys(ctx.query), known) : null;
      if (warning !== null) ctx.set(WARNING_HEADER, warning);
      const request = { method: 'GET', path: ctx.path, query, headers: ctx.headers as Record<string, string> };
      const validation = api.validateRequest(request, operation);
      // The request as sent names the problems of an invalid one; a valid one is handled coerced.
      const parsed = api.router.parseRequest(validation.errors ? request : validation.coerced, operation);
      if (validation.errors) {
        if (answers.withoutUrl && isMissingUrl(validation.errors)) return redirect(ctx, answers.withoutUrl);
        throw invalid(problemsOf(validation.errors, parsed.query as Record<string, unknown>, options.target));
      }
      ctx.state.api = { api, operation, validation, request: parsed } as ApiContext;
      return next();
    };
}

function redirect(ctx: Context, location: (request: ShowcaseRequest) => string): void {
  const prefer = ctx.query.prefer;
  ctx.redirect(location({ req: ctx.req, prefer: typeof prefer === 'string' ? prefer : undefined }));
  // No shared cache may keep it: without PUBLIC_BASE_URL it names the Host this client sent
  // (a forged one must reach nobody else), and a later deploy may change the showcase.
  ctx.set('Cache-Control', 'no-store');
  // docs/SPEC.md: the 302 has no body (Koa's redirect writes a line of text).
  ctx.body = '';
  ctx.remove('Content-Type');
}
