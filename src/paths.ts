// The paths this service answers, named once. openapi.yaml documents them and the route table
// (api/router.ts) matches them from there; what must write a path (the 302's Location, the
// showcase's example) takes it from here.

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
