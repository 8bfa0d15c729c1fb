import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DNS_CACHE, DnsResolver, type DnsCacheResult, type DnsOutcome } from '../../src/fetch/resolver.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';
import { rejection } from './harness.js';

// The caching resolver against a real nameserver on 127.0.0.1 (test/world/dns-server.ts), through
// real c-ares: what is asked, how often, and which error code comes back.

interface Ctx {
  dns: WorldDns;
  resolver: DnsResolver;
  cache: DnsCacheResult[];
  queries: DnsOutcome[];
  /** The resolver's clock (ms), moved by the tests. */
  clock: { ms: number };
}
const test = suite<Ctx>('caching c-ares resolver');

const TIMEOUT_MS = 400;

test.before.each(async (ctx) => {
  ctx.dns = await startWorldDns();
  ctx.cache = [];
  ctx.queries = [];
  const clock = (ctx.clock = { ms: 1_000_000 });
  ctx.resolver = new DnsResolver({
    now: () => clock.ms,
    timeoutMs: TIMEOUT_MS,
    servers: [ctx.dns.server],
    observer: { onCache: (r) => ctx.cache.push(r), onQuery: (o) => ctx.queries.push(o) },
  });
});

test.after.each(async (ctx) => {
  ctx.resolver.close();
  await ctx.dns.close();
});

const addressesOf = async (resolver: DnsResolver, name: string) => (await resolver.resolve(name)).map((a) => a.address);

test('an answer is kept for its TTL: a second lookup sends no query', async ({ dns, resolver, cache }) => {
  dns.set('site.test', { A: ['127.0.0.1'], AAAA: ['::1'], ttl: 300 });
  assert.equal(await resolver.resolve('site.test'), [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ]);
  assert.equal(await addressesOf(resolver, 'SITE.test.'), ['127.0.0.1', '::1'], 'case and the root dot do not make another name');
  assert.is(dns.queries('site.test', 'A'), 1);
  assert.is(dns.queries('site.test', 'AAAA'), 1);
  assert.equal(cache, ['miss', 'hit']);
});

test('an answer expires with its TTL: the next lookup asks again and sees the new records', async ({ dns, resolver, clock }) => {
  let address = '127.0.0.1';
  dns.set('short.test', () => ({ A: [address], ttl: 1 }));
  assert.equal(await addressesOf(resolver, 'short.test'), ['127.0.0.1']);
  address = '127.0.0.2';
  clock.ms += DNS_CACHE.minTtlMs;
  assert.equal(await addressesOf(resolver, 'short.test'), ['127.0.0.1'], 'still cached');
  clock.ms += 1;
  assert.equal(await addressesOf(resolver, 'short.test'), ['127.0.0.2']);
  assert.is(dns.queries('short.test', 'A'), 2);
});

test('a TTL of 0 is kept for the minimum TTL, not asked again per request', async ({ dns, resolver }) => {
  dns.set('zero.test', { A: ['127.0.0.1'], ttl: 0 });
  await resolver.resolve('zero.test');
  await resolver.resolve('zero.test');
  assert.is(dns.queries('zero.test', 'A'), 1);
});

test('NXDOMAIN is ENOTFOUND with the name, and is remembered: the next lookup sends no query', async ({ dns, resolver, cache }) => {
  const first = (await rejection(resolver.resolve('gone.test'))) as Error & { code: string; hostname: string };
  assert.is(first.code, 'ENOTFOUND');
  assert.is(first.hostname, 'gone.test');
  const second = (await rejection(resolver.resolve('gone.test'))) as Error & { code: string };
  assert.is(second.code, 'ENOTFOUND');
  assert.is(dns.queries('gone.test'), 2, 'A and AAAA once');
  assert.equal(cache, ['miss', 'negative_hit']);
});

test('a remembered failure is given again without a stack: it is an answer, not a fault to trace', async ({ resolver }) => {
  await rejection(resolver.resolve('gone.test'));
  const again = (await rejection(resolver.resolve('gone.test'))) as Error & { code: string; hostname: string };
  assert.is(again.message, 'DNS lookup of gone.test failed: ENOTFOUND');
  assert.is(again.stack, 'Error: DNS lookup of gone.test failed: ENOTFOUND');
  assert.is(Error.stackTraceLimit, 10, "the process's own limit is left as it was");
});

test('SERVFAIL is ESERVFAIL and REFUSED is EREFUSED, both remembered', async ({ dns, resolver }) => {
  dns.set('broken.test', { rcode: 'SERVFAIL' });
  dns.set('refused.test', { rcode: 'REFUSED' });
  assert.is(((await rejection(resolver.resolve('broken.test'))) as { code?: string }).code, 'ESERVFAIL');
  assert.is(((await rejection(resolver.resolve('refused.test'))) as { code?: string }).code, 'EREFUSED');
  await rejection(resolver.resolve('broken.test'));
  assert.is(dns.queries('broken.test', 'A'), 1);
});

test('a name with no address record is ENODATA', async ({ dns, resolver }) => {
  dns.set('empty.test', { A: [], AAAA: [] });
  assert.is(((await rejection(resolver.resolve('empty.test'))) as { code?: string }).code, 'ENODATA');
});

test('a CNAME chain is followed; a CNAME loop is ENODATA', async ({ dns, resolver, queries }) => {
  dns.set('www.site.test', { CNAME: 'cdn.test' });
  dns.set('cdn.test', { CNAME: 'edge.test' });
  dns.set('edge.test', { A: ['127.0.0.1'] });
  assert.equal(await addressesOf(resolver, 'www.site.test'), ['127.0.0.1']);
  dns.set('loop-a.test', { CNAME: 'loop-b.test' });
  dns.set('loop-b.test', { CNAME: 'loop-a.test' });
  assert.is(((await rejection(resolver.resolve('loop-a.test'))) as { code?: string }).code, 'ENODATA');
  assert.equal(queries, ['answered', 'nodata']);
});

test('a 300-character name is EBADNAME without a query', async ({ dns, resolver }) => {
  const name = `${'a'.repeat(60)}.`.repeat(5) + 'test';
  const err = (await rejection(resolver.resolve(name))) as Error & { code: string; hostname: string };
  assert.is(err.code, 'EBADNAME');
  assert.is(err.hostname, name);
  assert.is(dns.queries(name), 0);
});

test('hundreds of A records: the answer (received over TCP after truncation) is cut to the first few', async ({ dns, resolver }) => {
  const many = Array.from({ length: 300 }, (_, i) => `127.0.${Math.floor(i / 250)}.${(i % 250) + 1}`);
  dns.set('many.test', { A: many });
  const addresses = await addressesOf(resolver, 'many.test');
  assert.equal(addresses, many.slice(0, DNS_CACHE.maxAddresses));
});

test('one query per name however many lookups want it at once', async ({ dns, resolver, cache }) => {
  dns.set('busy.test', { A: ['127.0.0.1'], delayMs: 100 });
  const answers = await Promise.all(Array.from({ length: 50 }, () => addressesOf(resolver, 'busy.test')));
  assert.ok(answers.every((a) => a.length === 1 && a[0] === '127.0.0.1'));
  assert.is(dns.queries('busy.test', 'A'), 1);
  assert.is(dns.queries('busy.test', 'AAAA'), 1);
  assert.is(cache.filter((r) => r === 'coalesced').length, 49);
});

test('a silent nameserver: the lookup fails with ETIMEOUT at DNS_TIMEOUT_MS, and the timeout is remembered', async ({ dns, resolver, queries }) => {
  dns.set('dead.test', { silent: true });
  const started = performance.now();
  const err = (await rejection(resolver.resolve('dead.test'))) as Error & { code: string; hostname: string };
  const elapsed = performance.now() - started;
  assert.is(err.code, 'ETIMEOUT');
  assert.is(err.hostname, 'dead.test');
  assert.ok(elapsed >= TIMEOUT_MS - 20 && elapsed < TIMEOUT_MS + 1000, `ended after ${elapsed} ms`);
  assert.is(dns.queries('dead.test', 'A'), 2, 'one try and one retry, no more');
  assert.is(((await rejection(resolver.resolve('dead.test'))) as { code?: string }).code, 'ETIMEOUT');
  assert.is(dns.queries('dead.test', 'A'), 2);
  assert.equal(queries, ['timeout']);
});

test('a name that never answers does not hold up other names', async ({ dns, resolver }) => {
  dns.set('dead.test', { silent: true });
  dns.set('site.test', { A: ['127.0.0.1'] });
  let deadSettled = false;
  const dead = rejection(resolver.resolve('dead.test')).then((e) => ((deadSettled = true), e));
  assert.equal(await addressesOf(resolver, 'site.test'), ['127.0.0.1']);
  assert.not.ok(deadSettled, 'the other name was answered while dead.test was still being asked');
  assert.is(((await dead) as { code?: string }).code, 'ETIMEOUT');
});

test('an AAAA that never answers costs a short wait once A has answered, not the deadline', async ({ dns, resolver }) => {
  dns.set('v4only.test', ({ type }) => (type === 'A' ? { A: ['127.0.0.1'] } : { silent: true }));
  assert.equal(await addressesOf(resolver, 'v4only.test'), ['127.0.0.1']);
});

test('past the pending-query bound a lookup fails at once with EDNSOVERLOAD, and that is not remembered', async ({ dns }) => {
  dns.set('dead-1.test', { silent: true });
  dns.set('dead-2.test', { silent: true });
  dns.set('site.test', { A: ['127.0.0.1'] });
  const resolver = new DnsResolver({ timeoutMs: TIMEOUT_MS, servers: [dns.server], maxPending: 2 });
  const stalled = [rejection(resolver.resolve('dead-1.test')), rejection(resolver.resolve('dead-2.test'))];
  const err = (await rejection(resolver.resolve('site.test'))) as Error & { code: string; hostname: string };
  assert.is(err.code, 'EDNSOVERLOAD');
  assert.is(err.hostname, 'site.test');
  await Promise.all(stalled);
  assert.equal(await addressesOf(resolver, 'site.test'), ['127.0.0.1'], 'asked for real once there is room');
  resolver.close();
});

test('lookup(): the form net.connect calls, all addresses or one of a family', async ({ dns, resolver }) => {
  dns.set('site.test', { A: ['127.0.0.1'], AAAA: ['::1'] });
  const all = await new Promise((resolve, reject) => resolver.lookup('site.test', { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
  assert.equal(all, [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ]);
  const six = await new Promise((resolve, reject) =>
    resolver.lookup('site.test', { family: 6 }, (err, address, family) => (err ? reject(err) : resolve([address, family]))),
  );
  assert.equal(six, ['::1', 6]);
});

test('localhost names answer loopback without a query (RFC 6761); IP literals are returned as they are', async ({ dns, resolver }) => {
  assert.equal(await addressesOf(resolver, 'localhost'), ['127.0.0.1', '::1']);
  assert.equal(await addressesOf(resolver, '[::1]'), ['::1']);
  assert.is(dns.queries('localhost'), 0);
});

test.run();
