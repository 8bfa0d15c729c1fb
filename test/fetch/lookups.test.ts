// Name lookups hold no fetch slot: a fetch resolves its host within its client's share of lookups
// (fetch/lookups.ts), then asks for a fetch slot. Against the loopback nameserver of the simulated
// internet, with a zone whose names never answer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';
import { readAll, rejection, testConfig } from './harness.js';
import { until } from '../helpers/until.js';

interface Ctx {
  dns: WorldDns;
  up: Upstream;
}
const test = suite<Ctx>('name lookups outside fetch slots');

test.before.each(async (ctx) => {
  ctx.dns = await startWorldDns();
  ctx.dns.set('site.test', { A: ['127.0.0.1'] });
  ctx.dns.set('other.test', { A: ['127.0.0.1'] });
  ctx.up = await startUpstream({
    routes: {
      '/p': respond(200, 'page'),
      '/to-dead': (req, res) => {
        res.writeHead(302, { location: `http://dead-redirect.silent.test:${req.socket.localPort}/p`, 'content-length': 0 });
        res.end();
      },
    },
  });
});
test.after.each(async (ctx) => {
  await ctx.up.close();
  await ctx.dns.close();
});

/** The names made silent by the running test. */
const silenced: string[] = [];
const silentName = (dns: WorldDns, name: string) => {
  dns.set(name, { silent: true });
  silenced.push(name);
  return name;
};
/**
 * Once the test has checked what hung lookups hold, they are ended by NXDOMAIN (to c-ares' retry,
 * a third of DNS_TIMEOUT_MS in) rather than waited out: the deadline is not what these tests test.
 */
const answerSilentNames = (dns: WorldDns) => {
  for (const name of silenced.splice(0)) dns.set(name, { rcode: 'NXDOMAIN' });
};

test("150 clients naming 3 hosts each whose DNS never answers leave every fetch slot and a bystander's lookup free", async ({ dns, up }) => {
  const fetcher = createSafeFetch(testConfig({ DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '4000', FETCH_TIMEOUT_MS: '6000' }));
  try {
    let settled = 0;
    const attacks = [];
    // In waves of 25 clients, each seen by the nameserver before the next: a loopback socket's
    // receive buffer drops a burst of 900 datagrams, which would test the kernel, not the scheduler.
    for (let wave = 0; wave < 6; wave++) {
      const sent: string[] = [];
      for (let c = wave * 25; c < (wave + 1) * 25; c++) {
        for (let i = 0; i < 3; i++) {
          const host = silentName(dns, `n${i}.attacker${c}.test`);
          sent.push(host);
          const client = `10.1.0.${c}`;
          attacks.push(rejection(fetcher.safeFetch(new URL(`http://${host}:${up.port}/p`), { maxBytes: 1024, client })).finally(() => settled++));
        }
      }
      await until(() => sent.every((name) => dns.queries(name, 'A') > 0), 'every name queried');
    }
    assert.is(fetcher.lookups.scheduler.inFlight, 450);
    assert.is(fetcher.limiter.inFlight, 0, 'no lookup holds a fetch slot');
    assert.is(fetcher.lookups.scheduler.capped + fetcher.lookups.scheduler.queued, 0, 'the 512 lookup slots hold 3 per client');
    const res = await fetcher.safeFetch(up.url('/p', 'site.test'), { maxBytes: 1024, client: '10.9.9.9' });
    assert.is((await readAll(res.body)).toString(), 'page');
    assert.is(settled, 0, 'the bystander was answered while every attacker lookup still hung');
    answerSilentNames(dns);
    const errors = await Promise.all(attacks);
    assert.ok(errors.every((e) => (e as { failure?: { reason: string } }).failure?.reason === 'name_not_resolved'));
  } finally {
    await fetcher.close();
  }
});

test("a client past its share of lookups waits in its own queue; another client's lookup is served at once", async ({ dns, up }) => {
  const fetcher = createSafeFetch(
    testConfig({ DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '3000', FETCH_TIMEOUT_MS: '5000', MAX_CONCURRENT_LOOKUPS: '8', MAX_LOOKUPS_PER_CLIENT: '2' }),
  );
  try {
    const hung = Array.from({ length: 6 }, (_, i) =>
      rejection(fetcher.safeFetch(new URL(`http://${silentName(dns, `h${i}.attacker.test`)}:${up.port}/p`), { maxBytes: 1024, client: '10.2.0.1' })),
    );
    await until(() => fetcher.lookups.scheduler.inFlight >= 2, 'two lookups in flight');
    assert.equal([fetcher.lookups.scheduler.inFlight, fetcher.lookups.scheduler.capped, fetcher.limiter.inFlight], [2, 4, 0]);
    const res = await fetcher.safeFetch(up.url('/p', 'other.test'), { maxBytes: 1024, client: '10.2.0.2' });
    assert.is((await readAll(res.body)).toString(), 'page');
    answerSilentNames(dns);
    await Promise.all(hung);
  } finally {
    await fetcher.close();
  }
});

test('a redirect to a host whose DNS never answers gives its fetch slot back while the name is looked up', async ({ dns, up }) => {
  silentName(dns, 'dead-redirect.silent.test');
  const fetcher = createSafeFetch(testConfig({ DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', FETCH_TIMEOUT_MS: '4000' }));
  try {
    const pending = rejection(fetcher.safeFetch(up.url('/to-dead', 'site.test'), { maxBytes: 1024, client: '10.3.0.1' }));
    await until(() => fetcher.lookups.scheduler.inFlight >= 1 && up.hits('/to-dead') >= 1, 'the redirect followed and its lookup in flight');
    assert.equal([fetcher.limiter.inFlight, fetcher.lookups.scheduler.inFlight], [0, 1]);
    answerSilentNames(dns);
    const err = await pending;
    assert.equal((err as { failure?: unknown }).failure, { reason: 'name_not_resolved', message: 'The name dead-redirect.silent.test does not resolve.' });
    assert.is(fetcher.limiter.inFlight, 0);
  } finally {
    await fetcher.close();
  }
});

test.run();
