import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DnsResolver } from '../../src/fetch/resolver.js';
import { startService, type Service } from '../helpers/service.js';
import { redirect, respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/until.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';

// Pages under host names, end to end: the real app resolves them through its nameserver setting
// (DNS_SERVERS → the world's nameserver on 127.0.0.1), never through the system's resolvers. The
// names lead to the fixture site on 127.0.0.1 (URLs carry its port); private networks are allowed
// here, the guard's side is in dns-attacks.test.ts.

const html = { 'content-type': 'text/html; charset=utf-8' };
const DNS_TIMEOUT_MS = 1000;
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;
const notResolved = (host: string) => ({ code: 422, reason: 'name_not_resolved', message: `The name ${host} does not resolve.` });

interface Ctx {
  dns: WorldDns;
  up: Upstream;
  svc: Service;
  at: (host: string, path: string) => string;
}
const test = suite<Ctx>('pages under host names, resolved by the configured nameserver');

test.before.each(async (ctx) => {
  ctx.dns = await startWorldDns();
  ctx.up = await startUpstream({
    routes: {
      '/page': respond(200, '<title>Named</title>', html),
      '/with-dead-image': respond(200, '<title>t</title><meta property="og:image" content="http://img.dead.test/a.png">', html),
      '/to-alias': redirect(302, '/page'),
      // Every request on a new connection, so every request needs the name's address.
      '/close': respond(200, '<title>Named</title>', { ...html, connection: 'close' }),
    },
  });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', DNS_SERVERS: ctx.dns.server, DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) });
  ctx.at = (host, path) => ctx.up.url(path, host).href;
});

test.after.each(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
  await ctx.dns.close();
});

test('a page under a name is fetched from the address its nameserver gives', async ({ dns, svc, at }) => {
  dns.set('site.test', { A: ['127.0.0.1'] });
  const res = await svc.request(q(at('site.test', '/page')));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'Named');
  assert.ok(dns.queries('site.test', 'A') >= 1);
});

test('the answer is cached for its TTL: more pages on the host send no more queries', async ({ dns, svc, at }) => {
  dns.set('site.test', { A: ['127.0.0.1'], ttl: 300 });
  for (let i = 0; i < 5; i++) assert.is((await svc.request(q(at('site.test', `/page?n=${i}`)))).status, 200);
  assert.is(dns.queries('site.test', 'A'), 1);
  assert.is(dns.queries('site.test', 'AAAA'), 1);
});

test('after the TTL the name is asked again, not before', async ({ dns, at }) => {
  // The app's own resolver, but on a clock the test moves.
  const clock = { ms: 1_000_000 };
  const resolver = new DnsResolver({ timeoutMs: DNS_TIMEOUT_MS, servers: [dns.server], now: () => clock.ms });
  const svc = await startService({ RATE_LIMIT_MAX: '0', DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) }, { fetch: { resolver } });
  try {
    dns.set('site.test', { A: ['127.0.0.1'], ttl: 1 });
    assert.is((await svc.request(q(at('site.test', '/close?n=1')))).status, 200);
    assert.is((await svc.request(q(at('site.test', '/close?n=2')))).status, 200);
    assert.is(dns.queries('site.test', 'A'), 1, 'a new connection within the TTL: answered from the cache');
    clock.ms += 1000;
    assert.is((await svc.request(q(at('site.test', '/close?n=3')))).status, 200);
    assert.is(dns.queries('site.test', 'A'), 1, 'the last millisecond of the TTL: still the cache');
    clock.ms += 1;
    assert.is((await svc.request(q(at('site.test', '/close?n=4')))).status, 200);
    assert.is(dns.queries('site.test', 'A'), 2);
  } finally {
    await svc.close();
    resolver.close();
  }
});

test('a name that does not exist is a 422, remembered: the next page on it sends no query', async ({ dns, svc, at }) => {
  const first = await svc.request(q(at('gone.test', '/page?n=1')));
  assert.is(first.status, 422);
  assert.equal(first.json, notResolved('gone.test'));
  const second = await svc.request(q(at('gone.test', '/page?n=2')));
  assert.equal([second.status, second.json], [422, notResolved('gone.test')]);
  assert.is(dns.queries('gone.test', 'A'), 1);
});

test('one query per name while twenty pages on it are fetched at once', async ({ dns, svc, at }) => {
  dns.set('busy.test', { A: ['127.0.0.1'], delayMs: 50 });
  const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => svc.request(q(at('busy.test', `/page?n=${i}`))).then((r) => r.status)));
  assert.equal(statuses, Array(20).fill(200));
  assert.is(dns.queries('busy.test', 'A'), 1);
});

test('a nameserver that never answers for one name: 422 within the deadline, and other names are not held up', async ({ dns, svc, at }) => {
  dns.set('dead.test', { silent: true });
  dns.set('site.test', { A: ['127.0.0.1'] });
  const started = performance.now();
  let deadAnswered = false;
  const dead = svc.request(q(at('dead.test', '/page'))).then((r) => ((deadAnswered = true), r));
  const ok = await svc.request(q(at('site.test', '/page')));
  assert.is(ok.status, 200);
  assert.not.ok(deadAnswered, 'the page on site.test was answered while dead.test was still being asked');
  const res = await dead;
  const elapsed = performance.now() - started;
  assert.equal([res.status, res.json], [422, notResolved('dead.test')]);
  assert.ok(elapsed < DNS_TIMEOUT_MS + 1_000, `answered after ${elapsed} ms`);
});

test('a redirect to another name is resolved at its hop', async ({ dns, svc, at }) => {
  dns.set('old.test', { A: ['127.0.0.1'] });
  dns.set('new.test', { A: ['127.0.0.1'] });
  const res = await svc.request(q(at('old.test', '/to-alias')));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'Named');
});

test('probes never wait twice: an image host that hangs in DNS is asked once, later pages get the remembered failure', async ({ dns, svc, at }) => {
  dns.set('site.test', { A: ['127.0.0.1'] });
  dns.set('img.dead.test', { silent: true });
  const first = await svc.request(q(at('site.test', '/with-dead-image?n=1')));
  assert.is(first.status, 200);
  assert.is(first.json.image.url, 'http://img.dead.test/a.png');
  // c-ares sends its second try of each family (A, AAAA) near the end of our deadline, maybe after
  // it gave up on the query: count once all four are in.
  await until(() => dns.queries('img.dead.test', 'A') === 2 && dns.queries('img.dead.test', 'AAAA') === 2, "c-ares' two tries of A and AAAA");
  const asked = dns.queries('img.dead.test');
  const second = await svc.request(q(at('site.test', '/with-dead-image?n=2')));
  assert.is(second.status, 200);
  assert.is(second.json.image.url, 'http://img.dead.test/a.png');
  assert.is(dns.queries('img.dead.test'), asked, 'the second probe was answered from the negative cache');
  const metrics = (await svc.request('/metrics')).text;
  assert.match(metrics, /linkpeek_dns_cache_requests_total\{result="negative_hit"\} [1-9]/);
  assert.match(metrics, /linkpeek_dns_query_duration_seconds_count\{outcome="timeout"\} 1\b/);
});

test.run();
