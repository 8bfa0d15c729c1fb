// The paths this service answers, named once. openapi.yaml documents them and the router matches
// them from there; everything in src/ that must name a path by itself (the rate limiter, the fast
// path, the log's route labels, the error surface, the 302's Location) takes it from here.

export const PATHS = {
  metadata: '/v1/metadata',
  proxy: '/v1/cors-proxy',
  component: '/component.js',
  showcase: '/',
  openapi: '/openapi.yaml',
  docs: '/docs',
  favicon: '/favicon.ico',
  health: '/healthz',
  metrics: '/metrics',
} as const;

/** Where the versioned API lives: every path under it reaches an operation that may fetch. */
export const API_PREFIX = '/v1/';

/** The two operations that fetch on a client's behalf and share its rate limit (docs/SPEC.md "Limits"). */
export const DATA_PATHS: ReadonlySet<string> = new Set([PATHS.metadata, PATHS.proxy]);
