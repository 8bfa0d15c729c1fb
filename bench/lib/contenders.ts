// Who is measured, and how each is started (every one in its own process, started fresh per run).
// Every server runs compiled, as `npm start` runs LinkPeek: the HTTP fronts of the peers and the
// baselines too, so that no contender pays for a TypeScript loader (tsx costs ~25 MB of RSS and
// ~5% of throughput). They are compiled once per benchmark process, in two places: LinkPeek and
// the baselines into dist/bench/ (bench/tsconfig.servers.json), where they resolve the root
// install's packages; the peers' front into bench/dist/ (bench/tsconfig.peers.json), where it
// resolves the peers from bench/node_modules. Compiled under bench/, LinkPeek's own code would pick
// up the copies of undici, tldts or lru-cache the peers bring there.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './corpus.js';
import { startServer, type Server } from './proc.js';
import { LOCAL_DNS_SERVERS } from '../../test/helpers/local-dns.js';

const compiled = new Set<string>();

function compile(project: string): void {
  if (compiled.has(project)) return;
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: REPO_ROOT, stdio: 'inherit' });
  compiled.add(project);
}

/** `bench/lib/x.ts` (LinkPeek or a baseline) → its compiled `dist/bench/bench/lib/x.js`. */
function compiledServer(script: string): string {
  compile('bench/tsconfig.servers.json');
  return path.join('dist/bench', script.replace(/\.ts$/, '.js'));
}

/** The peers' front, compiled beside bench/node_modules. */
function compiledPeerServer(): string {
  compile('bench/tsconfig.peers.json');
  return 'bench/dist/peer-server.js';
}

export interface Contender {
  name: string;
  /** Path and query in front of the encoded page URL. */
  prefix: string;
  start(): Promise<Server>;
}

/**
 * LinkPeek as the comparison with the peers needs it: loopback upstreams allowed, no
 * rate limit, no image/favicon probes, no remote safety lookup, no Redis; request logs at the
 * default level (info), written to /dev/null, so LinkPeek pays for its logging as it would in service.
 * No per-client or per-destination share of fetch slots, and no per-client cap on connections or
 * requests in flight either, and no refusals past capacity (SHED_TARGET_MS 0): the one load
 * generator stands for many clients and the one corpus upstream for many sites (the peers have no
 * such caps), and throughput is measured past capacity.
 */
export const LINKPEEK_BENCH_ENV: Record<string, string> = {
  ALLOW_PRIVATE_NETWORKS: 'true',
  RATE_LIMIT_MAX: '0',
  MAX_FETCHES_PER_CLIENT: '0',
  MAX_FETCHES_PER_HOST: '0',
  MAX_CONNECTIONS_PER_CLIENT: '0',
  MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '0',
  CLIENT_REQUESTS_PER_SECOND: '0',
  SHED_TARGET_MS: '0',
  PROBE_IMAGES: 'false',
  SAFE_BROWSING_API_KEY: '',
  REDIS_URL: '',
  LOG_LEVEL: 'info',
  // Names (oEmbed endpoints, Safe Browsing) are asked of an empty loopback nameserver in this
  // process, never of the system's resolvers; the world benchmark passes its own.
  DNS_SERVERS: LOCAL_DNS_SERVERS,
};

export function linkpeek(name = 'LinkPeek', env: Record<string, string> = {}): Contender {
  return {
    name,
    prefix: '/v1/metadata?url=',
    start: () => startServer(name, compiledServer('bench/lib/linkpeek-server.ts'), [], { ...LINKPEEK_BENCH_ENV, ...env }),
  };
}

export const PEER_NAMES = ['unfurl.js', 'link-preview-js', 'metascraper', 'open-graph-scraper'] as const;

export function peer(name: string): Contender {
  return { name, prefix: '/?url=', start: () => startServer(name, compiledPeerServer(), [name]) };
}

export function bare(kind: 'koa' | 'koa-sized' | 'openapi', env: Record<string, string> = {}): Contender {
  const name = kind === 'koa' ? 'bare Koa' : kind === 'koa-sized' ? 'bare Koa, LinkPeek-sized answer' : 'bare openapi-backend';
  return { name, prefix: '/v1/metadata?url=', start: () => startServer(name, compiledServer('bench/lib/bare-servers.ts'), [kind], env) };
}
