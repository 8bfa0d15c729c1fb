import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicAddress } from '../../src/fetch/address.js';
import { DnsResolver } from '../../src/fetch/resolver.js';
import { startService, type Service } from '../helpers/service.js';
import { redirect, respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';

// Hostile DNS answers, one test per attack, against the real app with the address guard ON
// (ALLOW_PRIVATE_NETWORKS=false). Names are answered by the world's nameserver on 127.0.0.1; only
// the fixture's 127.0.0.1 counts as public (the isPublicAddress test seam), every other address,
// 127.0.0.2 and ::1 included, stays private. Every failure is the usual 422 within DNS_TIMEOUT_MS
// + 1 s, and an ordinary page still answers after it. A name with no usable answer is
// `name_not_resolved`; a name whose addresses the guard refuses reads exactly like any site that
// cannot be reached, so the answer never tells a private address from a public one.

const html = { 'content-type': 'text/html; charset=utf-8' };
const DNS_TIMEOUT_MS = 400;
const UNREACHABLE = { code: 422, reason: 'unreachable', message: 'The site could not be reached.' };
const notResolved = (host: string) => ({ code: 422, reason: 'name_not_resolved', message: `The name ${host} does not resolve.` });
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;

interface Ctx {
  dns: WorldDns;
  up: Upstream;
  svc: Service;
  resolver: DnsResolver;
  at: (host: string, path?: string) => string;
}
const clock = { ms: 1_000_000 };
const attacks = suite<Ctx>('hostile DNS answers');

attacks.before(async (ctx) => {
  ctx.dns = await startWorldDns();
  ctx.up = await startUpstream({
    routes: {
      '/': respond(200, '<title>Ordinary</title>', { ...html, connection: 'close' }),
      '/to-inside': redirect(302, 'http://inside.test/admin'),
    },
  });
  // The app's own resolver, on a clock the tests move past a TTL instead of waiting it out.
  ctx.resolver = new DnsResolver({ timeoutMs: DNS_TIMEOUT_MS, servers: [ctx.dns.server], now: () => clock.ms });
  ctx.svc = await startService(
    { RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', ALLOW_PRIVATE_NETWORKS: 'false', DNS_SERVERS: ctx.dns.server, DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) },
    { fetch: { resolver: ctx.resolver, isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) } },
  );
  ctx.at = (host, path = '/') => ctx.up.url(path, host).href;
  ctx.dns.set('site.test', { A: ['127.0.0.1'] });
  // The first answer of a fresh app pays for its warm-up (JIT, WebAssembly): not an attack's cost.
  assert.is((await ctx.svc.request(q(`${ctx.at('site.test')}?warm-up`))).status, 200);
});

attacks.after(async (ctx) => {
  await ctx.svc.close();
  ctx.resolver.close();
  await ctx.up.close();
  await ctx.dns.close();
});

let n = 0;
/** Asks for a page on `host` (a fresh URL each time: no cached answer), expects the 422 `body` in time, then an ordinary page. */
async function refusedInTime({ svc, at }: Ctx, host: string, body: object, path = '/'): Promise<void> {
  const started = performance.now();
  const res = await svc.request(q(`${at(host, path)}${path.includes('?') ? '&' : '?'}n=${n++}`));
  const elapsed = performance.now() - started;
  assert.equal([res.status, res.json], [422, body]);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.ok(elapsed < DNS_TIMEOUT_MS + 1_000, `answered after ${Math.round(elapsed)} ms`);
  const ordinary = await svc.request(q(`${at('site.test')}?n=${n++}`));
  assert.equal([ordinary.status, ordinary.json.title], [200, 'Ordinary']);
}

attacks('a name that does not resolve', async (ctx) => {
  await refusedInTime(ctx, 'nowhere.test', notResolved('nowhere.test'));
});

attacks('a nameserver that never answers', async (ctx) => {
  ctx.dns.set('silent.test', { silent: true });
  await refusedInTime(ctx, 'silent.test', notResolved('silent.test'));
});

attacks('SERVFAIL', async (ctx) => {
  ctx.dns.set('servfail.test', { rcode: 'SERVFAIL' });
  await refusedInTime(ctx, 'servfail.test', notResolved('servfail.test'));
});

attacks('an answer holding only blocked addresses', async (ctx) => {
  ctx.dns.set('blocked.test', { A: ['127.0.0.2', '127.0.0.3'], AAAA: ['::1'] });
  await refusedInTime(ctx, 'blocked.test', UNREACHABLE);
});

attacks('a public address mixed with a blocked one: the whole answer is refused', async (ctx) => {
  ctx.dns.set('mixed.test', { A: ['127.0.0.1', '127.0.0.2'] });
  const before = ctx.up.connections;
  await refusedInTime(ctx, 'mixed.test', UNREACHABLE);
  assert.is(ctx.up.connections, before + 1, 'only the ordinary page after it connected');
});

attacks('hundreds of A records', async (ctx) => {
  ctx.dns.set('many.test', { A: Array.from({ length: 300 }, (_, i) => `127.0.${Math.floor(i / 250)}.${(i % 250) + 1}`) });
  await refusedInTime(ctx, 'many.test', UNREACHABLE);
});

attacks('a CNAME loop', async (ctx) => {
  ctx.dns.set('loop-a.test', { CNAME: 'loop-b.test' });
  ctx.dns.set('loop-b.test', { CNAME: 'loop-a.test' });
  await refusedInTime(ctx, 'loop-a.test', notResolved('loop-a.test'));
});

attacks('a 300-character name', async (ctx) => {
  const name = `${'a'.repeat(60)}.`.repeat(5) + 'test';
  await refusedInTime(ctx, name, notResolved(name));
  assert.is(ctx.dns.queries(name), 0, 'never sent to the nameserver');
});

attacks('a CNAME to a name that resolves to a blocked address', async (ctx) => {
  ctx.dns.set('innocent.test', { CNAME: 'inside.test' });
  ctx.dns.set('inside.test', { A: ['127.0.0.2'] });
  await refusedInTime(ctx, 'innocent.test', UNREACHABLE);
});

attacks('a redirect to a name that resolves to a blocked address', async (ctx) => {
  ctx.dns.set('inside.test', { A: ['127.0.0.2'] });
  const before = ctx.up.hits('/to-inside');
  await refusedInTime(ctx, 'site.test', UNREACHABLE, '/to-inside');
  assert.is(ctx.up.hits('/to-inside'), before + 1, 'the first hop was fetched, the second refused');
});

attacks('DNS rebinding: the second answer is loopback, refused at connect', async (ctx) => {
  // Public (the fixture) on the first query, 127.0.0.2 afterwards; TTL 1 s so the cache asks again.
  ctx.dns.set('rebind.test', ({ n: i }) => ({ A: [i === 0 ? '127.0.0.1' : '127.0.0.2'], ttl: 1 }));
  const first = await ctx.svc.request(q(`${ctx.at('rebind.test')}?n=${n++}`));
  assert.equal([first.status, first.json.title], [200, 'Ordinary']);
  clock.ms += 1_001;
  const before = ctx.up.connections;
  await refusedInTime(ctx, 'rebind.test', UNREACHABLE);
  assert.is(ctx.dns.queries('rebind.test', 'A'), 2);
  assert.is(ctx.up.connections, before + 1, 'only the ordinary page after it connected');
});

attacks('private fetching stays refused with ALLOW_PRIVATE_NETWORKS off and no test seam', async (ctx) => {
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', ALLOW_PRIVATE_NETWORKS: 'false', DNS_SERVERS: ctx.dns.server });
  try {
    const before = ctx.up.connections;
    const res = await svc.request(q(`${ctx.at('site.test')}?n=${n++}`));
    assert.equal([res.status, res.json], [422, UNREACHABLE]);
    assert.is(ctx.up.connections, before, 'nothing was dialled');
  } finally {
    await svc.close();
  }
});

attacks.run();
