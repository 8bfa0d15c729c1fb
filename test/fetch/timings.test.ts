import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSafeFetch, type SafeFetchService } from '../../src/fetch/fetcher.js';
import { respond, startUpstream, type Upstream, type UpstreamResponse } from '../helpers/upstream.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';
import { readAll, testConfig } from './harness.js';

// safeFetch's `timings`: what opening connections cost a fetch (for Server-Timing), null when it
// reused a pooled connection, summed over redirect hops.

interface Ctx {
  dns: WorldDns;
  up: Upstream;
  fetcher: SafeFetchService;
}
const test = suite<Ctx>('safeFetch timings');

test.before.each(async (ctx) => {
  const held: UpstreamResponse[] = [];
  ctx.dns = await startWorldDns();
  ctx.dns.set('site.test', { A: ['127.0.0.1'] });
  ctx.dns.set('other.test', { A: ['127.0.0.1'] });
  ctx.up = await startUpstream({
    routes: {
      '/a': respond(200, 'a'),
      // Answered only once all five concurrent fetches are held, so none can reuse another's connection.
      '/slow': (_req, res) => {
        held.push(res);
        if (held.length === 5) for (const r of held.splice(0)) r.end('slow');
      },
      '/to-other': (req, res) => {
        res.writeHead(302, { location: `http://other.test:${req.socket.localPort}/a`, 'content-length': 0 });
        res.end();
      },
    },
  });
  ctx.fetcher = createSafeFetch(testConfig({ DNS_SERVERS: ctx.dns.server }));
});

test.after.each(async (ctx) => {
  await ctx.fetcher.close();
  await ctx.up.close();
  await ctx.dns.close();
});

const isMs = (v: number | null) => typeof v === 'number' && v >= 0 && Number.isFinite(v);

test('a new connection to a name: DNS and connect time; the next fetch on the pooled connection: null', async ({ up, fetcher }) => {
  const first = await fetcher.safeFetch(up.url('/a', 'site.test'), { maxBytes: 1024 });
  assert.ok(isMs(first.timings.dnsMs) && isMs(first.timings.connectMs), JSON.stringify(first.timings));
  await readAll(first.body);
  await new Promise((resolve) => setImmediate(resolve)); // a turn of the event loop: undici returns the connection to its pool just after the body's end
  const second = await fetcher.safeFetch(up.url('/a', 'site.test'), { maxBytes: 1024 });
  await readAll(second.body);
  assert.is(up.connections, 1);
  assert.equal(second.timings, { dnsMs: null, connectMs: null });
});

test('an IP literal: connect time, no DNS time', async ({ up, fetcher }) => {
  const res = await fetcher.safeFetch(up.url('/a'), { maxBytes: 1024 });
  await readAll(res.body);
  assert.is(res.timings.dnsMs, null);
  assert.ok(isMs(res.timings.connectMs));
});

test('concurrent fetches each opening a connection: each gets its own connection timings', async ({ up, fetcher }) => {
  const all = await Promise.all(Array.from({ length: 5 }, () => fetcher.safeFetch(up.url('/slow', 'site.test'), { maxBytes: 1024 })));
  await Promise.all(all.map((r) => readAll(r.body)));
  assert.is(up.connections, 5);
  for (const res of all) assert.ok(isMs(res.timings.dnsMs) && isMs(res.timings.connectMs), JSON.stringify(res.timings));
});

test('a redirect to another origin: the first hop reuses a pooled connection, the second opens one, and its costs count', async ({ up, fetcher }) => {
  const warm = await fetcher.safeFetch(up.url('/a', 'site.test'), { maxBytes: 1024 });
  await readAll(warm.body);
  await new Promise((resolve) => setImmediate(resolve));
  const res = await fetcher.safeFetch(up.url('/to-other', 'site.test'), { maxBytes: 1024 });
  await readAll(res.body);
  assert.is(res.url.href, `http://other.test:${up.port}/a`);
  assert.is(up.connections, 2);
  assert.ok(isMs(res.timings.dnsMs) && isMs(res.timings.connectMs), JSON.stringify(res.timings));
});

test.run();
