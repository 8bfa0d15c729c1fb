// Configuration is declared once, in one table: every setting, its environment variable, its
// default and its check, for the environment and the library's options alike. Only the entry
// points (src/main.ts, the CLI, the health check) read process.env and hand it to loadConfig;
// everything else receives Config.

import { availableParallelism } from 'node:os';
import { ConfigError, type Env, Field } from './config-reader.js';
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
  /** Requests per window per client IP over the two data operations (api/router.ts); 0 disables. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Requests of one client in flight at once, on every path (api/client-concurrency.ts); 0 disables. */
  maxRequestsInFlightPerClient: number;
  /** Requests of one client let in per second on every path after a burst (api/client-pace.ts); 0: no pacing. */
  clientRequestsPerSecond: number;
  clientRequestBurst: number;
  /** Open connections of one client (IPv4 address, IPv6 /64), trusted proxies excepted (connection-cap.ts); 0 disables. */
  maxConnectionsPerClient: number;
  /** Connections the kernel holds for the listener until it accepts them (listen(2)'s backlog; Linux caps it at net.core.somaxconn). */
  listenBacklog: number;
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

/**
 * One setting: its environment variable, whether only the HTTP face has it (its listener, rate
 * limit, logs, Redis and process: not an option of the library), and how it is read. `read` gets
 * the setting's text as a Field and the settings above it in the table, already read (for defaults
 * and checks that depend on them). Its Config key is the library's option of the same name.
 */
interface Setting<T> {
  env: string;
  service?: true;
  read: (field: Field, above: Config) => T;
}

/**
 * Every setting, once: the environment (loadConfig) and the library's options
 * (engine/options.ts) are both read through this table, with the same defaults, checks and
 * messages, each naming settings in its own words. A setting whose default or check depends on
 * another comes after it.
 */
export const SETTINGS = {
  port: { env: 'PORT', service: true, read: (f) => f.int(3000, { min: 0, max: 65535 }) },
  host: { env: 'HOST', service: true, read: (f) => f.listenAddress('0.0.0.0') },
  publicBaseUrl: { env: 'PUBLIC_BASE_URL', service: true, read: (f) => f.httpUrlOrNull() },
  trustProxy: { env: 'TRUST_PROXY', service: true, read: trustProxy },
  logLevel: { env: 'LOG_LEVEL', service: true, read: (f) => f.oneOf('info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) },
  // A public page rich in og and twitter tags (docs/SPEC.md: the 302 "default showcase page").
  showcaseUrl: { env: 'SHOWCASE_URL', service: true, read: (f) => f.httpUrl('https://github.com/') },
  rateLimitMax: { env: 'RATE_LIMIT_MAX', service: true, read: (f) => f.int(20, { min: 0 }) },
  rateLimitWindowMs: { env: 'RATE_LIMIT_WINDOW_MS', service: true, read: (f) => f.int(10_000, { min: 1 }) },
  // One site (an IPv6 /48) gets ten clients' budgets: room for a household or an office of
  // several people asking at once, where each of its 65,536 /64s would have had a full budget.
  rateLimitIpv6SiteMax: { env: 'RATE_LIMIT_IPV6_48_MAX', service: true, read: (f, c) => f.int(10 * c.rateLimitMax, { min: 0 }) },
  // A browser opens at most 6 connections to one origin, and a household or an office shares
  // one IPv4 address; 32 is far from both and far from the 5,000 an attacker opened.
  maxConnectionsPerClient: { env: 'MAX_CONNECTIONS_PER_CLIENT', service: true, read: (f) => f.int(32, { min: 0 }) },
  // Node's default, 511. Past it the kernel drops a new connection's SYN, and its client, a
  // bystander as likely as an attacker, sends it again only a second later (then 3 s, 7 s): with
  // both cores loaded, bench:fairness saw 33 to 673 such drops a run at 128 addresses. A deeper
  // queue holds them instead (4096: none dropped), but it is a FIFO that the fair queues never see,
  // and in the one loaded run with it the bystander waited no less outside the handler (p50 169,
  // p90 554 ms against 91 and 416 the run before): the default stays until a deeper one is shown
  // to help. 600 connections held while the process was stopped were answered within 0.6 s.
  listenBacklog: { env: 'LISTEN_BACKLOG', service: true, read: (f) => f.int(511, { min: 1, max: 65_535 }) },
  // The data endpoints allow 20 requests per 10 s, each of which may last its 9.5 s deadline.
  maxRequestsInFlightPerClient: { env: 'MAX_REQUESTS_IN_FLIGHT_PER_CLIENT', service: true, read: (f) => f.int(24, { min: 0 }) },
  // A page of the docs loads a handful of files, a browser showing cards a few, a load balancer
  // probes /healthz once a second; one address asking /healthz at 5,500 a second took most of a
  // core (bench:fairness, in the git history of bench/results/fairness.md), at 50 about 1% of one.
  clientRequestsPerSecond: { env: 'CLIENT_REQUESTS_PER_SECOND', service: true, read: (f) => f.int(50, { min: 0 }) },
  clientRequestBurst: { env: 'CLIENT_REQUEST_BURST', service: true, read: (f) => f.int(100, { min: 1 }) },
  rateLimitOutage: { env: 'RATE_LIMIT_OUTAGE', read: (f) => f.oneOf('share', OUTAGE_POLICIES) },
  redisUrl: { env: 'REDIS_URL', service: true, read: (f) => f.redisUrlOrNull() },
  redisClusterNodes: { env: 'REDIS_CLUSTER_NODES', read: (f) => f.hostPortsOrNull() },
  redisSentinels: { env: 'REDIS_SENTINELS', read: (f, c) => onlyOneRedis(f, c, f.hostPortsOrNull()) },
  redisSentinelMaster: { env: 'REDIS_SENTINEL_MASTER', read: (f) => f.string('mymaster') },
  // Redis answers in well under a millisecond on a local network; 250 ms is a stall, not load.
  redisTimeoutMs: { env: 'REDIS_TIMEOUT_MS', service: true, read: (f) => f.int(250, { min: 1 }) },
  redisKeyPrefix: { env: 'REDIS_KEY_PREFIX', service: true, read: (f) => f.keyPrefix('lp:') },
  metricsPort: { env: 'METRICS_PORT', service: true, read: (f) => f.intOrNull({ min: 1, max: 65535 }) },
  // The runtime's internals are nobody's business on the internet, and rendering them costs
  // milliseconds a request that no rate limit counts.
  metricsPublic: { env: 'METRICS_PUBLIC', service: true, read: (f) => f.bool(false) },

  allowPrivateNetworks: { env: 'ALLOW_PRIVATE_NETWORKS', read: (f) => f.bool(false) },
  fetchTimeoutMs: { env: 'FETCH_TIMEOUT_MS', read: (f) => f.int(8_000, { min: 1 }) },
  connectTimeoutMs: { env: 'CONNECT_TIMEOUT_MS', read: (f) => f.int(3_000, { min: 1 }) },
  maxRedirects: { env: 'MAX_REDIRECTS', read: (f) => f.int(5, { min: 0, max: 20 }) },
  maxPageBytes: { env: 'MAX_PAGE_BYTES', read: (f) => f.int(2 * 1024 * 1024, { min: 1024 }) },
  maxImageBytes: { env: 'MAX_IMAGE_BYTES', read: (f) => f.int(8 * 1024 * 1024, { min: 1024 }) },
  // A stall is cut no later after its last byte than a whole fetch may take.
  proxyIdleTimeoutMs: { env: 'PROXY_IDLE_TIMEOUT_MS', service: true, read: (f, c) => f.int(c.fetchTimeoutMs, { min: 1 }) },
  // MAX_IMAGE_BYTES (8 MiB) at about 70 KB/s, a slow mobile link's pace.
  proxyBodyTimeoutMs: { env: 'PROXY_BODY_TIMEOUT_MS', service: true, read: (f) => f.int(120_000, { min: 1 }) },
  // The ceiling of the budget in use, which is cut while the event loop runs late
  // (proxy/byte-scheduler.ts). On a 2-core machine, 32 MiB/s kept a bystander's metadata within
  // baseline + 50 ms under 4 MB images from 16 and 64 addresses, quiet and with both cores loaded,
  // where without a budget it missed by hundreds of ms (bench:fairness; the runs without one are
  // in the git history of bench/results/fairness.md). An HTTP/2 upstream cut at MAX_IMAGE_BYTES is
  // then read no further but may stay open (undici's cancel: test/helpers/upstream.ts).
  proxyEgressBytesPerSecond: { env: 'PROXY_EGRESS_BYTES_PER_SECOND', service: true, read: (f) => f.int(33_554_432, { min: 0 }) },
  userAgent: { env: 'USER_AGENT', read: (f) => f.headerValue(`LinkPeek/1.0 (+${DEFAULT_PUBLIC_URL})`) },
  // Measured (bench/results/slots.md): a held fetch streaming a head costs about 100 KB and two
  // descriptors (the client's connection and the upstream's), a waiting one a descriptor; the
  // event loop of two cores gives out first, past 4,000 held. Half of that, for slots and
  // queue alike: 6,144 of the 20,000 descriptors a process gets here, about 200 MB.
  maxConcurrentFetches: { env: 'MAX_CONCURRENT_FETCHES', read: (f) => f.int(2048, { min: 1 }) },
  fetchQueueMax: { env: 'FETCH_QUEUE_MAX', read: (f) => f.int(2048, { min: 0 }) },
  // An upper bound on a client's fair share (fetch/fairness/fair-queue.ts): one client's burst of
  // previews runs 8 at once while few clients compete; the share shrinks below it past 255.
  maxFetchesPerClient: { env: 'MAX_FETCHES_PER_CLIENT', read: (f) => f.int(8, { min: 0 }) },
  maxFetchesPerHost: { env: 'MAX_FETCHES_PER_HOST', read: (f) => f.int(16, { min: 0 }) },
  // A lookup costs one UDP query and no socket of its own: 512 stays within the resolver's
  // 1,000 distinct names pending (DNS_CACHE.maxPending), prefetches included. Four per client:
  // a page's host and its image, icon and oEmbed hosts.
  maxConcurrentLookups: { env: 'MAX_CONCURRENT_LOOKUPS', read: (f) => f.int(512, { min: 1, max: 1000 }) },
  lookupQueueMax: { env: 'LOOKUP_QUEUE_MAX', read: (f) => f.int(1024, { min: 0 }) },
  maxLookupsPerClient: { env: 'MAX_LOOKUPS_PER_CLIENT', read: (f) => f.int(4, { min: 0 }) },
  upstreamCaFile: { env: 'UPSTREAM_CA_FILE', read: (f) => f.certificateFileOrNull() },
  dnsServers: { env: 'DNS_SERVERS', read: (f) => f.nameserversOrNull() },

  cacheTtlMs: { env: 'CACHE_TTL_MS', read: (f) => f.int(12 * 60 * 60 * 1000, { min: 0 }) },
  cacheFailureTtlMs: { env: 'CACHE_FAILURE_TTL_MS', read: (f) => f.int(60_000, { min: 0 }) },
  cacheMaxEntries: { env: 'CACHE_MAX_ENTRIES', read: (f) => f.int(10_000, { min: 1 }) },
  cacheMaxBytes: { env: 'CACHE_MAX_BYTES', read: (f) => f.int(64 * 1024 * 1024, { min: 1024 }) },

  enrichBudgetMs: { env: 'ENRICH_BUDGET_MS', read: (f) => f.int(1_500, { min: 0 }) },
  // 2 s at most (below the 3 s connect deadline), never more than half of a shorter fetch
  // deadline, and no longer than the enrichment budget (1.5 s by default; 500 ms at the least): a
  // lookup that outlives the budget makes the probe of a host that never answers wait its whole
  // budget, and then the next page's probe wait again for the rest of the lookup, where one within
  // the budget has failed, and is remembered, by the time the budget ends. A lookup that may
  // outlive the fetch deadline would turn every DNS stall into a fetch timeout.
  dnsTimeoutMs: {
    env: 'DNS_TIMEOUT_MS',
    read: (f, c) => {
      const fallback = Math.min(2_000, Math.floor(c.fetchTimeoutMs / 2), Math.max(500, c.enrichBudgetMs));
      const ms = f.int(Math.max(1, fallback), { min: 1 });
      if (ms >= c.fetchTimeoutMs) f.fail(`must be below ${f.nameOf('fetchTimeoutMs')} (${c.fetchTimeoutMs})`);
      return ms;
    },
  },
  // One worker a core but one: the event loop answers and waits on the network, the workers
  // compute, and the event loop keeps a core of its own. With as many workers as cores, 128
  // addresses sending heavy heads left it a third of a core: a bystander's cached answer took 1.9 s
  // and its fresh page 4.1 s; with one fewer, 1.4 ms and 255 ms, for the same capacity alone
  // (280 and 286 ordinary pages a second; bench:fairness, in bench/results/fairness.md's history).
  scanWorkers: { env: 'SCAN_WORKERS', read: (f) => f.int(Math.max(1, availableParallelism() - 1), { min: 0, max: 64 }) },
  // 50 ms: within the bystander's +50 ms at the median (bench:fairness, bench/results/fairness.md).
  // The service's alone: the library never refuses a page.
  shedTargetMs: { env: 'SHED_TARGET_MS', service: true, read: (f) => f.int(50, { min: 0, max: 10_000 }) },
  // The sum of the two stages' own bounds, so neither is cut shorter than its setting says by
  // default; what it adds is one bound over both and what lies between them (the scan after the
  // last byte, the rules): a fetch that ends late leaves the enrichment only what remains.
  requestDeadlineMs: { env: 'REQUEST_DEADLINE_MS', read: (f, c) => f.int(c.fetchTimeoutMs + c.enrichBudgetMs, { min: 1 }) },
  probeImages: { env: 'PROBE_IMAGES', read: (f) => f.bool(true) },
  safetyAdultList: { env: 'SAFETY_ADULT_LIST', read: (f) => f.stringOrNull() },
  safetyThreatList: { env: 'SAFETY_THREAT_LIST', read: (f) => f.stringOrNull() },
  safeBrowsingApiKey: { env: 'SAFE_BROWSING_API_KEY', read: (f) => f.stringOrNull() },
  safeBrowsingUrl: { env: 'SAFE_BROWSING_URL', read: (f) => f.httpUrl('https://safebrowsing.googleapis.com/v4/threatMatches:find') },

  shutdownGraceMs: { env: 'SHUTDOWN_GRACE_MS', service: true, read: (f) => f.int(10_000, { min: 0 }) },
  // A load balancer needs a few of its health checks (often 2 to 3 of 1 to 2 s) to see `stopping`
  // and send no more: 5 s, but never more than half of the grace, so what it accepted last has
  // the other half to finish.
  shutdownDrainMs: {
    env: 'SHUTDOWN_DRAIN_MS',
    service: true,
    read: (f, c) => {
      const ms = f.int(Math.min(5_000, Math.floor(c.shutdownGraceMs / 2)), { min: 0 });
      if (ms > c.shutdownGraceMs) f.fail(`must be at most ${f.nameOf('shutdownGraceMs')} (${c.shutdownGraceMs})`);
      return ms;
    },
  },
  headersTimeoutMs: { env: 'HEADERS_TIMEOUT_MS', service: true, read: (f) => f.int(10_000, { min: 1 }) },
  requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', service: true, read: (f) => f.int(15_000, { min: 1 }) },
  keepAliveTimeoutMs: { env: 'KEEP_ALIVE_TIMEOUT_MS', service: true, read: (f) => f.int(5_000, { min: 1 }) },
  gcHeapGrowthPercent: { env: 'GC_HEAP_GROWTH_PERCENT', service: true, read: (f) => f.int(50, { min: 0, max: 300 }) },
} as const satisfies { [K in keyof Config]: Setting<Config[K]> };

export type SettingName = keyof typeof SETTINGS;

/** The settings only the HTTP face has (not options of the library). */
export type ServiceSetting = { [K in SettingName]: (typeof SETTINGS)[K] extends { service: true } ? K : never }[SettingName];

/** Where the settings' texts come from, and how that source names them. */
export interface SettingSource {
  /** The setting's text; undefined (or blank) when unset. */
  text(setting: SettingName): string | undefined;
  /** FETCH_TIMEOUT_MS for the environment, fetchTimeoutMs for the library. */
  name(setting: SettingName): string;
}

/** Reads every setting of the table from `source`; throws ConfigError naming the first bad one. */
export function readSettings(source: SettingSource): Config {
  const config = {} as Record<SettingName, unknown>;
  const nameOf = (setting: string) => source.name(setting as SettingName);
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const setting: Setting<unknown> = SETTINGS[name];
    config[name] = setting.read(new Field(source.name(name), source.text(name), nameOf), config as Config);
  }
  return config as Config;
}

/** Builds a Config from environment-style strings; throws ConfigError naming the first bad setting. */
export function loadConfig(env: Env = {}): Config {
  return readSettings({ text: (setting) => env[SETTINGS[setting].env], name: (setting) => SETTINGS[setting].env });
}

/** One shape of Redis at most: which one was meant is not guessed. */
function onlyOneRedis(field: Field, above: Config, sentinels: string[] | null): string[] | null {
  const set = (['redisUrl', 'redisClusterNodes', 'redisSentinels'] as const).filter((name) =>
    name === 'redisSentinels' ? sentinels !== null : above[name] !== null,
  );
  if (set.length > 1) throw new ConfigError(field.nameOf(set[1]!), `set only one of ${set.map(field.nameOf).join(' and ')}`);
  return sentinels;
}

function trustProxy(field: Field): TrustProxySetting {
  const text = field.stringOrNull();
  if (text === null) return false;
  const setting = parseTrustProxy(text);
  if (typeof setting === 'object' && 'error' in setting) field.fail(setting.error);
  return setting;
}
