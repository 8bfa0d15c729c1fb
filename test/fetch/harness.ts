// Shared set-up of the fetch tests: a config for loopback fixtures, resolvers that only ever
// answer loopback addresses (the tests never send a packet off 127.0.0.0/8), and small readers.

import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { loadConfig, type Config } from '../../src/config.js';
import { DnsWindow } from '../../src/fetch/dns-window.js';
import type { Resolver } from '../../src/fetch/resolver.js';
import { LOCAL_DNS_SERVERS } from '../helpers/local-dns.js';
import { TEST_CA_FILE } from '../helpers/upstream.js';

/**
 * Config for tests: trusts the test certificate, resolves names through the empty loopback
 * nameserver; `env` overrides (e.g. ALLOW_PRIVATE_NETWORKS).
 */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ ALLOW_PRIVATE_NETWORKS: 'true', UPSTREAM_CA_FILE: TEST_CA_FILE, LOG_LEVEL: 'silent', DNS_SERVERS: LOCAL_DNS_SERVERS, ...env });
}

/** A resolver that maps the given names to 127.0.0.1 and fails every other name with ENOTFOUND. */
export function loopbackLookup(names: readonly string[], calls: string[] = []): LookupFunction {
  return scriptedLookup((hostname) => (names.includes(hostname) ? ['127.0.0.1'] : null), calls);
}

/**
 * A resolver whose answers a test scripts per call: `answer(hostname, n)` returns addresses (n counts
 * the calls for that name from 0) or null for ENOTFOUND. Every call's hostname is pushed to `calls`.
 */
export function scriptedLookup(answer: (hostname: string, n: number) => string[] | null, calls: string[] = []): LookupFunction {
  const counts = new Map<string, number>();
  return ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === 'function' ? (options as typeof callback) : callback;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    const n = counts.get(hostname) ?? 0;
    counts.set(hostname, n + 1);
    calls.push(hostname);
    const ips = answer(hostname, n);
    setImmediate(() => {
      if (!ips || ips.length === 0) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
      const addresses: LookupAddress[] = ips.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      if (all) return cb(null, addresses);
      return cb(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

export async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts);
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection, got a value');
}

/**
 * A resolver object around a test's own lookup: every name is looked up by `lookup` when a
 * connection is made, and only then (it "answers at once", so no lookup slot is taken and nothing
 * is asked ahead), so a scripted lookup sees exactly one call per connection.
 */
export function lookupResolver(lookup: LookupFunction): Resolver {
  return { lookup, resolve: async () => [], answersAtOnce: () => true, recent: new DnsWindow(), cachedNames: 0, close() {} };
}
