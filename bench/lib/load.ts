// The load generator, in its own process: autocannon against one contender, its request
// paths made by a rule given on the command line, the summary printed as one JSON line on stdout.
//
//   node --import tsx bench/lib/load.ts '<json LoadSpec>'
//
// Paths: `unique` asks for /page/<name>?v=<run>-<n> of the upstream through `prefix` (every
// request a page the contender has not seen); `fixed` cycles through the same corpus URLs
// (`v=<run>` only), for cached hits; `literal` asks for `path` every time.

import autocannon from 'autocannon';
import { loadManifest, requestOrder } from './corpus.js';

export interface LoadSpec {
  origin: string;
  /** Path and query before the encoded page URL, e.g. "/v1/metadata?url=" or "/?url=". */
  prefix: string;
  upstream: string;
  mode: 'unique' | 'fixed' | 'literal';
  path?: string;
  run: string;
  connections: number;
  durationSeconds?: number;
  amount?: number;
  timeoutSeconds?: number;
}

export interface LoadResult {
  seconds: number;
  total: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  perSecond: number;
  okPerSecond: number;
  p50: number;
  p99: number;
  max: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const order = requestOrder(loadManifest());
let n = 0;
const nextPath = (): string => {
  if (spec.mode === 'literal') return spec.path!;
  const page = order[n % order.length]!;
  const version = spec.mode === 'unique' ? `${spec.run}-${n}` : spec.run;
  n++;
  return spec.prefix + encodeURIComponent(`${spec.upstream}/page/${page.name}?v=${version}`);
};

const result = await autocannon({
  url: spec.origin,
  connections: spec.connections,
  pipelining: 1,
  ...(spec.amount ? { amount: spec.amount } : { duration: spec.durationSeconds ?? 10 }),
  timeout: spec.timeoutSeconds ?? 20,
  requests: [
    {
      method: 'GET',
      setupRequest: (req: Record<string, unknown>) => ({ ...req, path: nextPath() }),
    },
  ],
});

const ok = result['2xx'];
const seconds = result.duration;
const out: LoadResult = {
  seconds,
  total: result.requests.total,
  ok,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  perSecond: result.requests.total / seconds,
  okPerSecond: ok / seconds,
  p50: result.latency.p50,
  p99: result.latency.p99,
  max: result.latency.max,
};
process.stdout.write(JSON.stringify(out) + '\n');
