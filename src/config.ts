// Configuration is declared once: every setting, its default and its check.
// Only src/main.ts reads process.env and hands it to loadConfig; everything else receives Config.

import { isIP } from 'node:net';

export interface Config {
  port: number;
  host: string;
  /** Absolute base for URLs the service writes (302 Location); when unset they are relative, never taken from request headers. */
  publicBaseUrl: string | null;
  /** Take the client IP from X-Forwarded-For (behind a load balancer). */
  trustProxy: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The page a metadata request without `url` is redirected to. */
  showcaseUrl: string;
  /** Requests per window per client IP over the two data paths (routes.ts DATA_PATHS); 0 disables. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  redisUrl: string | null;
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

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`Invalid setting ${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

const DEFAULT_PUBLIC_URL = 'https://github.com/linkpeek/linkpeek';

type Env = Record<string, string | undefined>;

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
    redisUrl: read.redisUrlOrNull('REDIS_URL'),
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
    maxConcurrentFetches: read.int('MAX_CONCURRENT_FETCHES', 64, { min: 1 }),
    fetchQueueMax: read.int('FETCH_QUEUE_MAX', 256, { min: 0 }),
    // An eighth and a quarter of the default 64 slots: it takes eight clients with slow pages, or
    // four slow destinations, to fill the instance; one client's burst of previews still runs 8 at once.
    maxFetchesPerClient: read.int('MAX_FETCHES_PER_CLIENT', 8, { min: 0 }),
    maxFetchesPerHost: read.int('MAX_FETCHES_PER_HOST', 16, { min: 0 }),
    upstreamCaFile: read.stringOrNull('UPSTREAM_CA_FILE'),
    dnsTimeoutMs: 0, // set below: its default depends on FETCH_TIMEOUT_MS and ENRICH_BUDGET_MS
    dnsServers: read.nameserversOrNull('DNS_SERVERS'),

    cacheTtlMs: read.int('CACHE_TTL_MS', 12 * 60 * 60 * 1000, { min: 0 }),
    cacheFailureTtlMs: read.int('CACHE_FAILURE_TTL_MS', 60_000, { min: 0 }),
    cacheMaxEntries: read.int('CACHE_MAX_ENTRIES', 10_000, { min: 1 }),
    cacheMaxBytes: read.int('CACHE_MAX_BYTES', 64 * 1024 * 1024, { min: 1024 }),

    enrichBudgetMs: read.int('ENRICH_BUDGET_MS', 1_500, { min: 0 }),
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
  const dnsDefault = Math.min(2_000, Math.floor(config.fetchTimeoutMs / 2), Math.max(500, config.enrichBudgetMs));
  config.dnsTimeoutMs = read.int('DNS_TIMEOUT_MS', Math.max(1, dnsDefault), { min: 1 });
  // A lookup that may outlive the fetch deadline would turn every DNS stall into a fetch timeout.
  if (config.dnsTimeoutMs >= config.fetchTimeoutMs) {
    throw new ConfigError('DNS_TIMEOUT_MS', `must be below FETCH_TIMEOUT_MS (${config.fetchTimeoutMs})`);
  }
  return config;
}

/** Parses one kind of value each; every failure names the setting. */
class Reader {
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  stringOrNull(name: string): string | null {
    return this.raw(name) ?? null;
  }

  intOrNull(name: string, range: { min?: number; max?: number } = {}): number | null {
    return this.raw(name) === undefined ? null : this.int(name, 0, range);
  }

  /** A Redis key prefix: printable ASCII without spaces, so keys stay readable in redis-cli. */
  keyPrefix(name: string, fallback: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^[\x21-\x7e]{1,64}$/.test(value)) throw new ConfigError(name, `"${value}" must be 1 to 64 printable characters without spaces`);
    return value;
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value)) throw new ConfigError(name, `"${value}" is not a whole number`);
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new ConfigError(name, `"${value}" is too large`);
    if (range.min !== undefined && n < range.min) throw new ConfigError(name, `must be at least ${range.min}`);
    if (range.max !== undefined && n > range.max) throw new ConfigError(name, `must be at most ${range.max}`);
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    throw new ConfigError(name, `"${value}" is not true or false`);
  }

  oneOf<const T extends readonly string[]>(name: string, fallback: T[number], allowed: T): T[number] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!allowed.includes(value)) throw new ConfigError(name, `"${value}" is not one of ${allowed.join(', ')}`);
    return value;
  }

  httpUrl(name: string, fallback: string): string {
    return this.httpUrlOrNull(name) ?? fallback;
  }

  httpUrlOrNull(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const url = URL.parse(value);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigError(name, `"${value}" is not an absolute http(s) URL`);
    }
    return url.href;
  }

  /**
   * Comma-separated nameservers, each an IP address with an optional port: 192.0.2.53,
   * 192.0.2.53:5353, 2001:db8::53, [2001:db8::53]:5353. c-ares takes addresses only, not names.
   */
  nameserversOrNull(name: string): string[] | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    return value.split(',').map((entry) => {
      const server = entry.trim();
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
      const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(server);
      const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : v4 ? [v4[1]!, v4[2]] : [server, undefined];
      const family = isIP(host);
      if (family === 0 || (family === 6 && !bracketed && server.includes(']'))) {
        throw new ConfigError(name, `"${server}" is not an IP address with an optional port (IPv6 in brackets when a port follows)`);
      }
      if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw new ConfigError(name, `"${server}" has no valid port`);
      return server;
    });
  }

  redisUrlOrNull(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const url = URL.parse(value);
    if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
      throw new ConfigError(name, `"${value}" is not a redis:// or rediss:// URL`);
    }
    return value;
  }
}
