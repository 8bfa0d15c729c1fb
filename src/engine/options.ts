// The library's options: the service's settings (config.ts) by their Config names, typed. They are
// not declared a second time: each option is turned into its environment variable
// (fetchTimeoutMs → FETCH_TIMEOUT_MS) and read by loadConfig, so defaults and checks are the
// service's own, and a bad value is named as the caller wrote it.

import { ConfigError, loadConfig, type Config } from '../config.js';

/** Settings of the HTTP face only: its listener, rate limit, logs, Redis and process. */
type ServiceSetting =
  | 'port'
  | 'host'
  | 'publicBaseUrl'
  | 'trustProxy'
  | 'logLevel'
  | 'showcaseUrl'
  | 'rateLimitMax'
  | 'rateLimitWindowMs'
  | 'proxyIdleTimeoutMs'
  | 'proxyBodyTimeoutMs'
  | 'maxRequestsInFlightPerClient'
  | 'maxConnectionsPerClient'
  | 'rateLimitIpv6SiteMax'
  | 'redisUrl'
  | 'redisTimeoutMs'
  | 'redisKeyPrefix'
  | 'metricsPort'
  | 'metricsPublic'
  | 'shutdownGraceMs'
  | 'shutdownDrainMs'
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'keepAliveTimeoutMs'
  | 'gcHeapGrowthPercent'
  | 'shedTargetMs';

const SERVICE_SETTINGS: ReadonlySet<string> = new Set<ServiceSetting>([
  'port',
  'host',
  'publicBaseUrl',
  'trustProxy',
  'logLevel',
  'showcaseUrl',
  'rateLimitMax',
  'rateLimitWindowMs',
  'proxyIdleTimeoutMs',
  'proxyBodyTimeoutMs',
  'maxRequestsInFlightPerClient',
  'maxConnectionsPerClient',
  'rateLimitIpv6SiteMax',
  'redisUrl',
  'redisTimeoutMs',
  'redisKeyPrefix',
  'metricsPort',
  'metricsPublic',
  'shutdownGraceMs',
  'shutdownDrainMs',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
  'gcHeapGrowthPercent',
  'shedTargetMs',
]);

/**
 * The engine's settings, each the environment variable of the same name in camelCase
 * (README "Settings"), with the same default and the same check: `fetchTimeoutMs` is
 * FETCH_TIMEOUT_MS, `dnsServers` is DNS_SERVERS as a list. Unset means the default.
 */
export type LinkPeekOptions = { [K in Exclude<keyof Config, ServiceSetting>]?: Config[K] | undefined };

/** fetchTimeoutMs → FETCH_TIMEOUT_MS. */
export function envName(option: string): string {
  return option.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

/** FETCH_TIMEOUT_MS → fetchTimeoutMs. */
function optionName(env: string): string {
  return env.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The options as the environment would say them; a value of the wrong kind is refused here. */
function asEnv(options: object): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || value === null) continue;
    const known = Object.hasOwn(DEFAULTS, name) && !SERVICE_SETTINGS.has(name);
    if (!known) throw new ConfigError(name, 'is not an option of the engine (README "Settings")');
    const expected = typeof DEFAULTS[name as keyof Config];
    if (name === 'dnsServers') {
      if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) throw new ConfigError(name, 'must be a list of strings');
      env[envName(name)] = value.join(',');
    } else if (typeof value === expected || (expected === 'object' && typeof value === 'string')) {
      env[envName(name)] = String(value);
    } else {
      throw new ConfigError(name, `must be a ${expected === 'object' ? 'string' : expected}, not ${JSON.stringify(value)}`);
    }
  }
  return env;
}

/** Every setting at its default: the names and kinds of the options. */
const DEFAULTS: Config = loadConfig({});

/**
 * What the library does unless told otherwise, where it differs from the service: it scans on the
 * caller's thread (scanWorkers 0), since one page at a time gains nothing from a thread and a
 * caller's process should not start threads it did not ask for.
 */
const LIBRARY_DEFAULTS = { SCAN_WORKERS: '0' };

/** The engine's Config from the library's options; the HTTP-only settings stay at their defaults. */
export function configFromOptions(options: LinkPeekOptions = {}): Config {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  const env = { ...LIBRARY_DEFAULTS, ...asEnv(options) };
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Said in the caller's words: "Invalid setting fetchTimeoutMs: must be at least 1".
    const detail = err.message.slice(err.message.indexOf(': ') + 2).replace(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, optionName);
    throw new ConfigError(optionName(err.setting), detail);
  }
}
