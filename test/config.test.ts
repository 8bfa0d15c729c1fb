import { availableParallelism } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../src/config.js';
import { SERVICE_ARGS } from './helpers/process.js';

test('the defaults are the documented ones', () => {
  const c = loadConfig({});
  assert.is(c.port, 3000);
  assert.is(c.rateLimitMax, 20);
  assert.is(c.rateLimitWindowMs, 10_000);
  assert.is(c.redisUrl, null);
  assert.is(c.trustProxy, false);
  assert.is(c.allowPrivateNetworks, false);
  assert.is(c.fetchTimeoutMs, 8000);
  assert.is(c.maxRedirects, 5);
  assert.is(c.maxPageBytes, 2 * 1024 * 1024);
  assert.is(c.maxImageBytes, 8 * 1024 * 1024);
  assert.is(c.showcaseUrl, 'https://github.com/');
  assert.is(c.gcHeapGrowthPercent, 50);
  assert.is(c.dnsTimeoutMs, 1500);
  assert.ok(c.dnsTimeoutMs <= c.enrichBudgetMs);
  assert.ok(c.dnsTimeoutMs < c.connectTimeoutMs);
  assert.is(c.dnsServers, null);
});

test('HOST: an IPv4 or IPv6 address, IPv6 also in brackets', () => {
  assert.equal(
    ['127.0.0.1', '::', '[::1]'].map((HOST) => loadConfig({ HOST }).host),
    ['127.0.0.1', '::', '::1'],
  );
});

test('DNS_SERVERS: IPv4 and bracketed IPv6, each with an optional port', () => {
  const c = loadConfig({ DNS_SERVERS: '192.0.2.53, 127.0.0.1:5353,2001:db8::53,[2001:db8::53]:53' });
  assert.equal(c.dnsServers, ['192.0.2.53', '127.0.0.1:5353', '2001:db8::53', '[2001:db8::53]:53']);
});

test('SCAN_WORKERS is one a core but one (at least one) unless set; REQUEST_DEADLINE_MS is the fetch deadline plus the enrichment budget unless set', () => {
  assert.equal([loadConfig({}).scanWorkers, loadConfig({ SCAN_WORKERS: '0' }).scanWorkers], [Math.max(1, availableParallelism() - 1), 0]);
  assert.is(loadConfig({}).requestDeadlineMs, 9500);
  assert.is(loadConfig({ FETCH_TIMEOUT_MS: '3000', ENRICH_BUDGET_MS: '500' }).requestDeadlineMs, 3500);
  assert.is(loadConfig({ REQUEST_DEADLINE_MS: '2000' }).requestDeadlineMs, 2000);
});

test('DNS_TIMEOUT_MS defaults to at most half a shorter fetch deadline', () => {
  assert.is(loadConfig({ FETCH_TIMEOUT_MS: '1000' }).dnsTimeoutMs, 500);
  assert.is(loadConfig({ DNS_TIMEOUT_MS: '700' }).dnsTimeoutMs, 700);
});

test('DNS_TIMEOUT_MS defaults to no longer than the enrichment budget, 500 ms at the least, 2 s at most', () => {
  assert.is(loadConfig({ ENRICH_BUDGET_MS: '1000' }).dnsTimeoutMs, 1000);
  assert.is(loadConfig({ ENRICH_BUDGET_MS: '100' }).dnsTimeoutMs, 500);
  assert.is(loadConfig({ ENRICH_BUDGET_MS: '5000' }).dnsTimeoutMs, 2000);
  assert.is(loadConfig({ ENRICH_BUDGET_MS: '1000', DNS_TIMEOUT_MS: '1800' }).dnsTimeoutMs, 1800);
});

test('TRUST_PROXY: true, false, or the proxies as addresses, CIDRs and range names', () => {
  assert.is(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.is(loadConfig({ TRUST_PROXY: 'off' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,2001:db8::/32' }).trustProxy, ['10.0.0.1', '192.168.0.0/16', '2001:db8::/32']);
  assert.equal(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy, ['127.0.0.0/8', '::1/128']);
});

test('RATE_LIMIT_IPV6_48_MAX is ten clients of RATE_LIMIT_MAX unless set', () => {
  assert.is(loadConfig({}).rateLimitIpv6SiteMax, 200);
  assert.is(loadConfig({ RATE_LIMIT_MAX: '5' }).rateLimitIpv6SiteMax, 50);
  assert.is(loadConfig({ RATE_LIMIT_IPV6_48_MAX: '0' }).rateLimitIpv6SiteMax, 0);
});

test('SHUTDOWN_DRAIN_MS defaults to 5 s, at most half the grace', () => {
  assert.is(loadConfig({}).shutdownDrainMs, 5000);
  assert.is(loadConfig({ SHUTDOWN_GRACE_MS: '4000' }).shutdownDrainMs, 2000);
  assert.is(loadConfig({ SHUTDOWN_GRACE_MS: '4000', SHUTDOWN_DRAIN_MS: '4000' }).shutdownDrainMs, 4000);
});

const bad: Array<[Record<string, string>, string]> = [
  [{ PORT: 'eighty' }, 'Invalid setting PORT: "eighty" is not a whole number'],
  [{ PORT: '70000' }, 'Invalid setting PORT: must be at most 65535'],
  [{ RATE_LIMIT_MAX: '-1' }, 'Invalid setting RATE_LIMIT_MAX: "-1" is not a whole number'],
  [{ RATE_LIMIT_WINDOW_MS: '0' }, 'Invalid setting RATE_LIMIT_WINDOW_MS: must be at least 1'],
  [{ HOST: '999.1.1.1' }, 'Invalid setting HOST: "999.1.1.1" is not an IP address (names are not looked up): e.g. 0.0.0.0, 127.0.0.1 or ::'],
  [{ HOST: 'localhost' }, 'Invalid setting HOST: "localhost" is not an IP address (names are not looked up): e.g. 0.0.0.0, 127.0.0.1 or ::'],
  [{ TRUST_PROXY: 'sometimes' }, 'Invalid setting TRUST_PROXY: "sometimes" is not true, false, an address, a CIDR or one of loopback, linklocal, uniquelocal'],
  [
    { TRUST_PROXY: '10.0.0.1, 10.0.0.0/33' },
    'Invalid setting TRUST_PROXY: "10.0.0.0/33" is not true, false, an address, a CIDR or one of loopback, linklocal, uniquelocal',
  ],
  [{ LOG_LEVEL: 'loud' }, 'Invalid setting LOG_LEVEL: "loud" is not one of fatal, error, warn, info, debug, trace, silent'],
  [{ SHOWCASE_URL: 'ftp://x' }, 'Invalid setting SHOWCASE_URL: "ftp://x" is not an absolute http(s) URL'],
  [{ PUBLIC_BASE_URL: '/relative' }, 'Invalid setting PUBLIC_BASE_URL: "/relative" is not an absolute http(s) URL'],
  [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'Invalid setting REDIS_URL: "http://127.0.0.1:6379" is not a redis:// or rediss:// URL'],
  [{ GC_HEAP_GROWTH_PERCENT: '301' }, 'Invalid setting GC_HEAP_GROWTH_PERCENT: must be at most 300'],
  [
    { DNS_SERVERS: 'dns.example' },
    'Invalid setting DNS_SERVERS: "dns.example" is not an IP address with an optional port (IPv6 in brackets when a port follows)',
  ],
  [{ DNS_SERVERS: '127.0.0.1:99999' }, 'Invalid setting DNS_SERVERS: "127.0.0.1:99999" has no valid port'],
  [{ DNS_SERVERS: '127.0.0.1,' }, 'Invalid setting DNS_SERVERS: "" is not an IP address with an optional port (IPv6 in brackets when a port follows)'],
  [{ DNS_TIMEOUT_MS: '8000' }, 'Invalid setting DNS_TIMEOUT_MS: must be below FETCH_TIMEOUT_MS (8000)'],
  [{ DNS_TIMEOUT_MS: '0' }, 'Invalid setting DNS_TIMEOUT_MS: must be at least 1'],
  [{ SCAN_WORKERS: '65' }, 'Invalid setting SCAN_WORKERS: must be at most 64'],
  [{ SHUTDOWN_DRAIN_MS: '10001' }, 'Invalid setting SHUTDOWN_DRAIN_MS: must be at most SHUTDOWN_GRACE_MS (10000)'],
  [{ REQUEST_DEADLINE_MS: 'soon' }, 'Invalid setting REQUEST_DEADLINE_MS: "soon" is not a whole number'],
  [{ ALLOW_PRIVATE_NETWORKS: 'yes please' }, 'Invalid setting ALLOW_PRIVATE_NETWORKS: "yes please" is not true or false'],
];
for (const [env, message] of bad) {
  test(`a bad ${Object.keys(env)[0]} is refused with a message naming it`, () => {
    try {
      loadConfig(env);
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.is((err as Error).message, message);
    }
  });
}

test('an invalid setting stops startup with a message naming it', () => {
  const run = spawnSync(process.execPath, [...SERVICE_ARGS], {
    env: { ...process.env, PORT: 'eighty', LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(run.status, 2);
  assert.match(run.stderr, 'Invalid setting PORT: "eighty" is not a whole number');
});

test.run();
