// Configuration is declared once: every setting, its default and its check.
// Only src/main.ts reads process.env and hands it to loadConfig; everything else receives Config.

import { ConfigError, type Env, Reader } from './config-reader.js';

export { ConfigError };

/** What an instance enforces while the shared store cannot be reached (store/rate-limit-outage.ts). */
export const OUTAGE_POLICIES = ['share', 'closed', 'local'] as const;
export type OutagePolicy = (typeof OUTAGE_POLICIES)[number];

export interface Config {
  port: number;
  host: string;
  /** Absolute base for URLs the service writes (302 Location); when unset, the request's scheme and Host (api/showcase-location.ts). */
  publicBaseUrl: string | null;
  /** Take the client IP from X-Forwarded-For (behind a load balancer). */
  trustProxy: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The page a metadata request without `url` is redirected to. */
  showcaseUrl: string;
  /** Requests per window per client IP over the two data paths (paths.ts DATA_PATHS); 0 disables. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** What an instance enforces while the shared store cannot be reached (store/rate-limit-outage.ts). */
  rateLimitOutage: OutagePolicy;
  redisUrl: string | null;
  /** Seed nodes of a Redis Cluster, host:port; instead of REDIS_URL. */
  redisClusterNodes: string[] | null;
  /** Sentinels, host:port, and the name of the master they watch; instead of REDIS_URL. */
  redisSentinels: string[] | null;
  redisSentinelMaster: string;
  /** Longest a Redis operation may take; past it the instance falls back to its memory stores. */
  redisTimeoutMs: number;
  /** Prefix of every Redis key, so deployments can share one Redis. */
  redisKeyPrefix: string;
  /** A separate listener for /metrics (off the public port); null serves it on the public port. */
  metricsPort: number | null;

  /** Lets upstream fetches reach loopback and private ranges: local development and tests only. */
  allowPrivateNetworks: boolean;
  /** Total deadline of one upstream fetch: connect, headers and body. */
  fetchTimeoutMs: number;
  connectTimeoutMs: number;
  maxRedirects: number;
  /** Page bytes read at most, counted after decompression. */
  maxPageBytes: number;
  /** Proxied image bytes at most. */
  maxImageBytes: number;
  userAgent: string;
  /** Upstream fetches in flight per instance, and how many more may wait for a slot. */
  maxConcurrentFetches: number;
  fetchQueueMax: number;
  /** Fair shares of those slots: per client IP (IPv6: per /64) and per destination; 0 disables. */
  maxFetchesPerClient: number;
  maxFetchesPerHost: number;
  /** Name lookups in flight, waiting, and one client's upper bound (fetch/lookups.ts). */
  maxConcurrentLookups: number;
  lookupQueueMax: number;
  maxLookupsPerClient: number;
  /** Extra PEM CA certificate(s) trusted for upstream TLS, beside the system roots. */
  upstreamCaFile: string | null;
  /** Deadline of one DNS lookup (A and AAAA together), below the connect deadline by default. */
  dnsTimeoutMs: number;
  /** Nameservers as host[:port] (IPv6 in brackets); null: the system's (/etc/resolv.conf). */
  dnsServers: string[] | null;

  cacheTtlMs: number;
  cacheFailureTtlMs: number;
  cacheMaxEntries: number;
  cacheMaxBytes: number;

  /** Time the image, favicon and safety enrichment may add to an uncached answer. */
  enrichBudgetMs: number;
  /** Time one page's head scan may spend (both charset passes); past it the tags found so far are the answer. */
  scanBudgetMs: number;
  /** One deadline over the fetch, the scan and the enrichment of one extraction. */
  requestDeadlineMs: number;
  /** Probe image and favicon bytes (off for benchmarks against peers that do not). */
  probeImages: boolean;
  safetyAdultList: string | null;
  safetyThreatList: string | null;
  safeBrowsingApiKey: string | null;
  safeBrowsingUrl: string;

  shutdownGraceMs: number;
  /** Slow-client limits of the HTTP server, tighter than Node's 60 s / 300 s. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** V8's old-generation growth between full collections, in percent (src/gc.ts); 0 leaves V8's own. */
  gcHeapGrowthPercent: number;
}

const DEFAULT_PUBLIC_URL = 'https://github.com/linkpeek/linkpeek';

/** Builds a Config from environment-style strings; throws ConfigError naming the first bad setting. */
export function loadConfig(env: Env = {}): Config {
  const read = new Reader(env);
  const config: Config = {
    port: read.int('PORT', 3000, { min: 0, max: 65535 }),
    host: read.string('HOST', '0.0.0.0'),
    publicBaseUrl: read.httpUrlOrNull('PUBLIC_BASE_URL'),
    trustProxy: read.bool('TRUST_PROXY', false),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    // A public page rich in og and twitter tags (docs/SPEC.md: the 302 "default showcase page").
    showcaseUrl: read.httpUrl('SHOWCASE_URL', 'https://github.com/'),
    rateLimitMax: read.int('RATE_LIMIT_MAX', 20, { min: 0 }),
    rateLimitWindowMs: read.int('RATE_LIMIT_WINDOW_MS', 10_000, { min: 1 }),
    rateLimitOutage: read.oneOf('RATE_LIMIT_OUTAGE', 'share', OUTAGE_POLICIES),
    redisUrl: read.redisUrlOrNull('REDIS_URL'),
    redisClusterNodes: read.hostPortsOrNull('REDIS_CLUSTER_NODES'),
    redisSentinels: read.hostPortsOrNull('REDIS_SENTINELS'),
    redisSentinelMaster: read.string('REDIS_SENTINEL_MASTER', 'mymaster'),
    // Redis answers in well under a millisecond on a local network; 250 ms is a stall, not load.
    redisTimeoutMs: read.int('REDIS_TIMEOUT_MS', 250, { min: 1 }),
    redisKeyPrefix: read.keyPrefix('REDIS_KEY_PREFIX', 'lp:'),
    metricsPort: read.intOrNull('METRICS_PORT', { min: 1, max: 65535 }),

    allowPrivateNetworks: read.bool('ALLOW_PRIVATE_NETWORKS', false),
    fetchTimeoutMs: read.int('FETCH_TIMEOUT_MS', 8_000, { min: 1 }),
    connectTimeoutMs: read.int('CONNECT_TIMEOUT_MS', 3_000, { min: 1 }),
    maxRedirects: read.int('MAX_REDIRECTS', 5, { min: 0, max: 20 }),
    maxPageBytes: read.int('MAX_PAGE_BYTES', 2 * 1024 * 1024, { min: 1024 }),
    maxImageBytes: read.int('MAX_IMAGE_BYTES', 8 * 1024 * 1024, { min: 1024 }),
    userAgent: read.string('USER_AGENT', `LinkPeek/1.0 (+${DEFAULT_PUBLIC_URL})`),
    // Measured (bench/results/slots.md): a held fetch streaming a head costs about 100 KB and two
    // descriptors (the client's connection and the upstream's), a waiting one a descriptor; the
    // event loop of two cores gives out first, past 4,000 held. Half of that, for slots and
    // queue alike: 6,144 of the 20,000 descriptors a process gets here, about 200 MB.
    maxConcurrentFetches: read.int('MAX_CONCURRENT_FETCHES', 2048, { min: 1 }),
    fetchQueueMax: read.int('FETCH_QUEUE_MAX', 2048, { min: 0 }),
    // An upper bound on a client's fair share (fetch/fair-scheduler.ts): one client's burst of
    // previews runs 8 at once while few clients compete; the share shrinks below it past 255.
    maxFetchesPerClient: read.int('MAX_FETCHES_PER_CLIENT', 8, { min: 0 }),
    maxFetchesPerHost: read.int('MAX_FETCHES_PER_HOST', 16, { min: 0 }),
    // A lookup costs one UDP query and no socket of its own: 512 stays within the resolver's
    // 1,000 distinct names pending (DNS_CACHE.maxPending), prefetches included. Four per client:
    // a page's host and its image, icon and oEmbed hosts.
    maxConcurrentLookups: read.int('MAX_CONCURRENT_LOOKUPS', 512, { min: 1, max: 1000 }),
    lookupQueueMax: read.int('LOOKUP_QUEUE_MAX', 1024, { min: 0 }),
    maxLookupsPerClient: read.int('MAX_LOOKUPS_PER_CLIENT', 4, { min: 0 }),
    upstreamCaFile: read.stringOrNull('UPSTREAM_CA_FILE'),
    dnsTimeoutMs: 0, // set below: its default depends on FETCH_TIMEOUT_MS and ENRICH_BUDGET_MS
    dnsServers: read.nameserversOrNull('DNS_SERVERS'),

    cacheTtlMs: read.int('CACHE_TTL_MS', 12 * 60 * 60 * 1000, { min: 0 }),
    cacheFailureTtlMs: read.int('CACHE_FAILURE_TTL_MS', 60_000, { min: 0 }),
    cacheMaxEntries: read.int('CACHE_MAX_ENTRIES', 10_000, { min: 1 }),
    cacheMaxBytes: read.int('CACHE_MAX_BYTES', 64 * 1024 * 1024, { min: 1024 }),

    enrichBudgetMs: read.int('ENRICH_BUDGET_MS', 1_500, { min: 0 }),
    // Real heads scan in a few ms (the longest well under 10 ms, bench/results/page-shapes.md); a
    // page of tiny tags costs up to 0.25 µs a byte, 500 ms at the byte cap. 30 ms, with the rules after it, keeps any
    // page under 50 ms of CPU (bench/results/scan-budget.md).
    scanBudgetMs: read.int('SCAN_BUDGET_MS', 30, { min: 1 }),
    requestDeadlineMs: 0, // set below: its default depends on FETCH_TIMEOUT_MS and ENRICH_BUDGET_MS
    probeImages: read.bool('PROBE_IMAGES', true),
    safetyAdultList: read.stringOrNull('SAFETY_ADULT_LIST'),
    safetyThreatList: read.stringOrNull('SAFETY_THREAT_LIST'),
    safeBrowsingApiKey: read.stringOrNull('SAFE_BROWSING_API_KEY'),
    safeBrowsingUrl: read.httpUrl('SAFE_BROWSING_URL', 'https://safebrowsing.googleapis.com/v4/threatMatches:find'),

    shutdownGraceMs: read.int('SHUTDOWN_GRACE_MS', 10_000, { min: 0 }),
    headersTimeoutMs: read.int('HEADERS_TIMEOUT_MS', 10_000, { min: 1 }),
    requestTimeoutMs: read.int('REQUEST_TIMEOUT_MS', 15_000, { min: 1 }),
    keepAliveTimeoutMs: read.int('KEEP_ALIVE_TIMEOUT_MS', 5_000, { min: 1 }),
    gcHeapGrowthPercent: read.int('GC_HEAP_GROWTH_PERCENT', 50, { min: 0, max: 300 }),
  };
  // 2 s at most (below the 3 s connect deadline), never more than half of a shorter fetch
  // deadline, and no longer than the enrichment budget (1.5 s by default; 500 ms at the least): a
  // lookup that outlives the budget makes the probe of a host that never answers wait its whole
  // budget, and then the next page's probe wait again for the rest of the lookup, where one within
  // the budget has failed, and is remembered, by the time the budget ends.
  const redisSettings = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].filter((name) => (env[name] ?? '').trim() !== '');
  if (redisSettings.length > 1) throw new ConfigError(redisSettings[1]!, `set only one of ${redisSettings.join(' and ')}`);
  const dnsDefault = Math.min(2_000, Math.floor(config.fetchTimeoutMs / 2), Math.max(500, config.enrichBudgetMs));
  config.dnsTimeoutMs = read.int('DNS_TIMEOUT_MS', Math.max(1, dnsDefault), { min: 1 });
  // A lookup that may outlive the fetch deadline would turn every DNS stall into a fetch timeout.
  if (config.dnsTimeoutMs >= config.fetchTimeoutMs) {
    throw new ConfigError('DNS_TIMEOUT_MS', `must be below FETCH_TIMEOUT_MS (${config.fetchTimeoutMs})`);
  }
  // The sum of the two stages' own bounds, so neither is cut shorter than its setting says by
  // default; what it adds is one bound over both and what lies between them (the scan after the
  // last byte, the rules): a fetch that ends late leaves the enrichment only what remains.
  config.requestDeadlineMs = read.int('REQUEST_DEADLINE_MS', config.fetchTimeoutMs + config.enrichBudgetMs, { min: 1 });
  return config;
}
