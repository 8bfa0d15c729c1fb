// Who is measured, and how each is started (every one in its own process, started fresh per run).

import { startServer, type Server } from './proc.js';

export interface Contender {
  name: string;
  /** Path and query in front of the encoded page URL. */
  prefix: string;
  start(): Promise<Server>;
}

/**
 * LinkPeek as the comparison with the peers needs it (issue 9): loopback upstreams allowed, no
 * rate limit, no image/favicon probes, no remote safety lookup, no Redis; request logs at the
 * default level (info), written to /dev/null, so LinkPeek pays for its logging as it would in service.
 */
export const LINKPEEK_BENCH_ENV: Record<string, string> = {
  ALLOW_PRIVATE_NETWORKS: 'true',
  RATE_LIMIT_MAX: '0',
  PROBE_IMAGES: 'false',
  SAFE_BROWSING_API_KEY: '',
  REDIS_URL: '',
  LOG_LEVEL: 'info',
};

export function linkpeek(name = 'LinkPeek', env: Record<string, string> = {}): Contender {
  return {
    name,
    prefix: '/v1/metadata?url=',
    start: () => startServer(name, 'bench/lib/linkpeek-server.ts', [], { ...LINKPEEK_BENCH_ENV, ...env }),
  };
}

export const PEER_NAMES = ['unfurl.js', 'link-preview-js', 'metascraper', 'open-graph-scraper'] as const;

export function peer(name: string): Contender {
  return { name, prefix: '/?url=', start: () => startServer(name, 'bench/lib/peer-server.ts', [name]) };
}

export function bare(kind: 'koa' | 'koa-sized' | 'openapi', env: Record<string, string> = {}): Contender {
  const name = kind === 'koa' ? 'bare Koa' : kind === 'koa-sized' ? 'bare Koa, LinkPeek-sized answer' : 'bare openapi-backend';
  return { name, prefix: '/v1/metadata?url=', start: () => startServer(name, 'bench/lib/bare-servers.ts', [kind], env) };
}
