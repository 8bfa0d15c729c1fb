// Configuration is declared once: every setting, its default and its check.
// Only src/main.ts reads process.env and hands it to loadConfig; everything else receives Config.

import { availableParallelism } from 'node:os';
import { ConfigError, type Env, Reader } from './config-reader.js';
import { parseTrustProxy, type TrustProxySetting } from './trusted-proxies.js';

export { ConfigError };

/** What an instance enforces while the shared store cannot be reached (store/rate-limit-outage.ts). */
export const OUTAGE_POLICIES = ['share', 'closed', 'local'] as const;
export type OutagePolicy = (typeof OUTAGE_POLICIES)[number];

export interface Config {
  port: number;
  host: string;
  /** Absolute base for URLs the service writes (302 Location); when unset, the request's scheme and Host (api/showcase-location.ts). */
  publicBaseUrl: string | null;
  /** Whose X-Forwarded-For is believed (trusted-proxies.ts): false, true (one proxy, any address) or the proxies' addresses and CIDRs. */
  trustProxy: TrustProxySetting;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The page a metadata request without `url` is redirected to. */
  showcaseUrl: string;
  /** Requests per window per client IP over the two data paths (paths.ts DATA_PATHS); 0 disables. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Requests of one client in flight at once, on every path (api/client-concurrency.ts); 0 disables. */
  maxRequestsInFlightPerClient: number;
  /** Requests of one client let in per second on every path after a burst (api/client-pace.ts); 0: no pacing. */
  clientRequestsPerSecond: number;
  clientRequestBurst: number;
  /** Open connections of one client (IPv4 address, IPv6 /64), trusted proxies excepted (connection-cap.ts); 0 disables. */
  maxConnectionsPerClient: number;
  /** Requests per window per IPv6 /48, over all its /64s together; 0 disables. */
  rateLimitIpv6SiteMax: number;
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
  /** A separate listener for /metrics (off the public port). */
  metricsPort: number | null;
  /** Without METRICS_PORT, serve /metrics on the public port: the operator's explicit choice, off by default. */
  metricsPublic: boolean;

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
  /** A proxied image's body: the longest gap between two chunks, and the longest it may take in all from its headers. */
  proxyIdleTimeoutMs: number;
  proxyBodyTimeoutMs: number;
  /** Proxied image bytes the instance sends per second at most, shared fairly among clients; 0: no bound. */
  proxyEgressBytesPerSecond: number;
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
  /**
   * Worker threads that decode, scan and apply the rules to pages (src/scan/scan-pool.ts); 0: on
   * the calling thread (the library's and the CLI's default).
   */
  scanWorkers: number;
  /**
   * Past capacity, pages are refused (503, the heaviest clients first) while a queue stands: while
   * a fair client's wait for a fetch, lookup or scan slot stays above this all along an interval,
   * or the event loop stays a fifth of it late (fairness/load-shedder.ts); 0: never refused.
   */
  shedTargetMs: number;
  /** One deadline over the fetch, the scan and the enrichment of one extraction. */
  requestDeadlineMs: number;
  /** Probe image and favicon bytes (off for benchmarks against peers that do not). */
  probeImages: boolean;
  safetyAdultList: string | null;
  safetyThreatList: string | null;
  safeBrowsingApiKey: string | null;
  safeBrowsingUrl: string;

  /** From the signal: how long requests in flight, those accepted while draining included, may still finish. */
  shutdownGraceMs: number;
  /** From the signal: how long the listener stays open with /healthz answering 503 `stopping`; at most the grace. */
  shutdownDrainMs: number;
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
    host: read.listenAddress('HOST', '0.0.0.0'),
    publicBaseUrl: read.httpUrlOrNull('PUBLIC_BASE_URL'),
    trustProxy: trustProxy(read.stringOrNull('TRUST_PROXY')),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    // A public page rich in og and twitter tags (docs/SPEC.md: the 302 "default showcase page").
    showcaseUrl: read.httpUrl('SHOWCASE_URL', 'https://github.com/'),
    rateLimitMax: read.int('RATE_LIMIT_MAX', 20, { min: 0 }),
    rateLimitWindowMs: read.int('RATE_LIMIT_WINDOW_MS', 10_000, { min: 1 }),
    rateLimitIpv6SiteMax: 0, // set below: its default depends on RATE_LIMIT_MAX
    // A browser opens at most 6 connections to one origin, and a household or an office shares
    // one IPv4 address; 32 is far from both and far from the 5,000 an attacker opened.
    maxConnectionsPerClient: read.int('MAX_CONNECTIONS_PER_CLIENT', 32, { min: 0 }),
    // The data endpoints allow 20 requests per 10 s, each of which may last its 9.5 s deadline.
    maxRequestsInFlightPerClient: read.int('MAX_REQUESTS_IN_FLIGHT_PER_CLIENT', 24, { min: 0 }),
    // A page of the docs loads a handful of files, a browser showing cards a few, a load balancer
    // probes /healthz once a second; one address asking /healthz at 5,500 a second took most of a
    // core (bench/results/fairness.md), at 50 it takes about 1% of one.
    clientRequestsPerSecond: read.int('CLIENT_REQUESTS_PER_SECOND', 50, { min: 0 }),
    clientRequestBurst: read.int('CLIENT_REQUEST_BURST', 100, { min: 1 }),
    rateLimitOutage: read.oneOf('RATE_LIMIT_OUTAGE', 'share', OUTAGE_POLICIES),
    redisUrl: read.redisUrlOrNull('REDIS_URL'),
    redisClusterNodes: read.hostPortsOrNull('REDIS_CLUSTER_NODES'),
    redisSentinels: read.hostPortsOrNull('REDIS_SENTINELS'),
    redisSentinelMaster: read.string('REDIS_SENTINEL_MASTER', 'mymaster'),
    // Redis answers in well under a millisecond on a local network; 250 ms is a stall, not load.
    redisTimeoutMs: read.int('REDIS_TIMEOUT_MS', 250, { min: 1 }),
    redisKeyPrefix: read.keyPrefix('REDIS_KEY_PREFIX', 'lp:'),
    metricsPort: read.intOrNull('METRICS_PORT', { min: 1, max: 65535 }),
    // The runtime's internals are nobody's business on the internet, and rendering them costs
    // milliseconds a request that no rate limit counts.
    metricsPublic: read.bool('METRICS_PUBLIC', false),

    allowPrivateNetworks: read.bool('ALLOW_PRIVATE_NETWORKS', false),
    fetchTimeoutMs: read.int('FETCH_TIMEOUT_MS', 8_000, { min: 1 }),
    connectTimeoutMs: read.int('CONNECT_TIMEOUT_MS', 3_000, { min: 1 }),
    maxRedirects: read.int('MAX_REDIRECTS', 5, { min: 0, max: 20 }),
    maxPageBytes: read.int('MAX_PAGE_BYTES', 2 * 1024 * 1024, { min: 1024 }),
    maxImageBytes: read.int('MAX_IMAGE_BYTES', 8 * 1024 * 1024, { min: 1024 }),
    proxyIdleTimeoutMs: 0, // set below: its default depends on FETCH_TIMEOUT_MS
    // MAX_IMAGE_BYTES (8 MiB) at about 70 KB/s, a slow mobile link's pace.
    proxyBodyTimeoutMs: read.int('PROXY_BODY_TIMEOUT_MS', 120_000, { min: 1 }),
    // Off by default: bench:fairness on a loaded machine (load 19) showed no gain for a
    // bystander's uncached answers under 4 MB images at 16 or 64 addresses, the attackers' images
    // slowed to the floor, and with a budget an HTTP/2 upstream cut at MAX_IMAGE_BYTES was not
    // always cancelled (test/proxy/streaming.test.ts). The ceiling of the budget in use, which is
    // cut while the event loop runs late (proxy/byte-scheduler.ts).
    proxyEgressBytesPerSecond: read.int('PROXY_EGRESS_BYTES_PER_SECOND', 0, { min: 0 }),
    userAgent: read.string('USER_AGENT', `LinkPeek/1.0 (+${DEFAULT_PUBLIC_URL})`),
    // Measured (bench/results/slots.md): a held fetch streaming a head costs about 100 KB and two
    // descriptors (the client's connection and the upstream's), a waiting one a descriptor; the
    // event loop of two cores gives out first, past 4,000 held. Half of that, for slots and
    // queue alike: 6,144 of the 20,000 descriptors a process gets here, about 200 MB.
    maxConcurrentFetches: read.int('MAX_CONCURRENT_FETCHES', 2048, { min: 1 }),
    fetchQueueMax: read.int('FETCH_QUEUE_MAX', 2048, { min: 0 }),
    // An upper bound on a client's fair share (fetch/fairness/fair-queue.ts): one client's burst of
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
    // One worker a core: the event loop answers and waits on the network, the workers compute.
    scanWorkers: read.int('SCAN_WORKERS', availableParallelism(), { min: 0, max: 64 }),
    // 50 ms: within the bystander's +50 ms at the median. Measured in bench:fairness (bench/results/fairness.md).
    shedTargetMs: read.int('SHED_TARGET_MS', 50, { min: 0, max: 10_000 }),
    requestDeadlineMs: 0, // set below: its default depends on FETCH_TIMEOUT_MS and ENRICH_BUDGET_MS
    probeImages: read.bool('PROBE_IMAGES', true),
    safetyAdultList: read.stringOrNull('SAFETY_ADULT_LIST'),
    safetyThreatList: read.stringOrNull('SAFETY_THREAT_LIST'),
    safeBrowsingApiKey: read.stringOrNull('SAFE_BROWSING_API_KEY'),
    safeBrowsingUrl: read.httpUrl('SAFE_BROWSING_URL', 'https://safebrowsing.googleapis.com/v4/threatMatches:find'),

    shutdownGraceMs: read.int('SHUTDOWN_GRACE_MS', 10_000, { min: 0 }),
    shutdownDrainMs: 0, // set below: its default depends on SHUTDOWN_GRACE_MS
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
  // A stall is cut no later after its last byte than a whole fetch may take.
  config.proxyIdleTimeoutMs = read.int('PROXY_IDLE_TIMEOUT_MS', config.fetchTimeoutMs, { min: 1 });
  // One site (an IPv6 /48) gets ten clients' budgets: room for a household or an office of
  // several people asking at once, where each of its 65,536 /64s would have had a full budget.
  config.rateLimitIpv6SiteMax = read.int('RATE_LIMIT_IPV6_48_MAX', 10 * config.rateLimitMax, { min: 0 });
  // A load balancer needs a few of its health checks (often 2 to 3 of 1 to 2 s) to see `stopping`
  // and send no more: 5 s, but never more than half of the grace, so what it accepted last has
  // the other half to finish.
  config.shutdownDrainMs = read.int('SHUTDOWN_DRAIN_MS', Math.min(5_000, Math.floor(config.shutdownGraceMs / 2)), { min: 0 });
  if (config.shutdownDrainMs > config.shutdownGraceMs) {
    throw new ConfigError('SHUTDOWN_DRAIN_MS', `must be at most SHUTDOWN_GRACE_MS (${config.shutdownGraceMs})`);
  }
  config.requestDeadlineMs = read.int('REQUEST_DEADLINE_MS', config.fetchTimeoutMs + config.enrichBudgetMs, { min: 1 });
  return config;
}

function trustProxy(text: string | null): TrustProxySetting {
  if (text === null) return false;
  const setting = parseTrustProxy(text);
  if (typeof setting === 'object' && 'error' in setting) throw new ConfigError('TRUST_PROXY', setting.error);
  return setting;
}
