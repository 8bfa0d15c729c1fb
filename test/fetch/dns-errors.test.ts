import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FetchFailed } from '../../src/errors.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { DnsResolver } from '../../src/fetch/resolver.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';
import { rejection, testConfig } from './harness.js';

// A failed lookup reaches safeFetch's caller as FetchFailed whose `cause` carries Node's dns error
// code and the name: callers tell a name that does not exist from a nameserver that failed, and
// our own saturation (EDNSOVERLOAD) from the page's fault. Each is told to the API's caller as
// `name_not_resolved` naming the host: a name DNS cannot carry (EBADNAME) resolves nowhere either.

interface Ctx {
  dns: WorldDns;
}
const test = suite<Ctx>('DNS failures seen through safeFetch');

test.before.each(async (ctx) => {
  ctx.dns = await startWorldDns();
  ctx.dns.set('servfail.test', { rcode: 'SERVFAIL' });
  ctx.dns.set('refused.test', { rcode: 'REFUSED' });
  ctx.dns.set('silent.test', { silent: true });
  ctx.dns.set('empty.test', { A: [] });
});

test.after.each(async (ctx) => {
  await ctx.dns.close();
});

const cases: Array<[string, string]> = [
  ['nowhere.test', 'ENOTFOUND'],
  ['servfail.test', 'ESERVFAIL'],
  ['refused.test', 'EREFUSED'],
  ['silent.test', 'ETIMEOUT'],
  ['empty.test', 'ENODATA'],
  [`${'a'.repeat(64)}.test`, 'EBADNAME'],
];
for (const [host, code] of cases) {
  test(`${host.length > 40 ? 'a label over 63 characters' : host}: FetchFailed caused by ${code}`, async ({ dns }) => {
    const { safeFetch, close } = createSafeFetch(testConfig({ DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '300' }));
    try {
      const err = await rejection(safeFetch(new URL(`http://${host}/`), { maxBytes: 1024 }));
      assert.instance(err, FetchFailed);
      assert.equal((err as FetchFailed).failure, { reason: 'name_not_resolved', message: `The name ${host} does not resolve.` });
      assert.is(err.message, `The name ${host} does not resolve.`);
      const cause = err.cause as { code?: string; hostname?: string };
      assert.equal([cause.code, cause.hostname], [code, host]);
    } finally {
      await close();
    }
  });
}

test('an overloaded resolver: EDNSOVERLOAD, told apart from the name failing', async ({ dns }) => {
  dns.set('site.test', { A: ['127.0.0.1'] });
  const resolver = new DnsResolver({ timeoutMs: 300, servers: [dns.server], maxPending: 1 });
  const { safeFetch, close } = createSafeFetch(testConfig(), { resolver });
  try {
    const stalled = rejection(resolver.resolve('silent.test'));
    const err = await rejection(safeFetch(new URL('http://site.test/'), { maxBytes: 1024 }));
    assert.equal((err.cause as { code?: string }).code, 'EDNSOVERLOAD');
    await stalled;
  } finally {
    await close();
    resolver.close();
  }
});

test.run();
