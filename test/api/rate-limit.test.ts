import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startService, type Service } from '../helpers/service.js';
import { testRedisUrl } from '../helpers/redis.js';

// The rate limit through the real app, at the spec's settings (20 per 10 s, then a 10 s block):
// the 429 and its headers, which requests count and who counts as one client. How the budget
// moves over time is tested on both stores with a driven clock (test/store/rate-limit.test.ts);
// nothing here waits for a window. Each test speaks from its own loopback address (or, behind
// TRUST_PROXY, its own forwarded address), so budgets never mix between tests.

const BAD = '/v1/metadata?url=ftp://x'; // answered 400 at once, and still counted
const BAD_PROXY = '/v1/cors-proxy?url=ftp://x';
const LIMIT = { RATE_LIMIT_MAX: '20' };

async function burst(svc: Service, path: string, n: number, from: string) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await svc.request(path, { localAddress: from }));
  return out;
}

function suiteFor(name: string, env: Record<string, string>, prepare: () => Promise<void> = async () => {}) {
  const s = suite<{ svc: Service }>(`rate limit (${name})`);
  s.before(async (ctx) => {
    await prepare();
    ctx.svc = await startService({ ...LIMIT, ...env });
  });
  s.after(async (ctx) => ctx.svc.close());

  s('exactly 20 requests pass, the 21st is 429 with Retry-After and a JSON body', async ({ svc }) => {
    const before = Date.now();
    const res = await burst(svc, BAD, 21, '127.0.0.11');
    const after = Date.now();
    assert.equal(
      res.slice(0, 20).map((r) => r.status),
      Array(20).fill(400),
    );
    assert.equal(
      res.slice(0, 20).map((r) => r.headers.get('x-ratelimit-remaining')),
      Array.from({ length: 20 }, (_, i) => String(19 - i)),
    );
    const limited = res[20]!;
    assert.is(limited.status, 429);
    assert.is(limited.headers.get('retry-after'), '10');
    assert.is(limited.headers.get('x-ratelimit-limit'), '20');
    assert.is(limited.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(limited.json, { code: 429, message: 'Too many requests; retry in 10 seconds.' });
    // Reset, epoch seconds: while counted, when the first request leaves the window; once
    // blocked, when the block ends; both 10 s after a moment within the burst
    const inTenSeconds = (ms: number) => Math.ceil((ms + 10_000) / 1000);
    for (const r of [res[0]!, res[19]!, limited]) {
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      assert.ok(reset >= inTenSeconds(before) && reset <= inTenSeconds(after), `${reset} not within the burst + 10 s`);
    }
  });

  s('the budget is shared by /v1/metadata and /v1/cors-proxy; the proxy 429 is {error}', async ({ svc }) => {
    await burst(svc, BAD, 10, '127.0.0.12');
    await burst(svc, BAD_PROXY, 10, '127.0.0.12');
    const [limited] = await burst(svc, BAD_PROXY, 1, '127.0.0.12');
    assert.is(limited!.status, 429);
    assert.equal(limited!.json, { error: 'Too many requests; retry in 10 seconds.' });
  });

  s('clients are counted apart', async ({ svc }) => {
    await burst(svc, BAD, 20, '127.0.0.14');
    const [other] = await burst(svc, BAD, 1, '127.0.0.15');
    assert.is(other!.status, 400);
    assert.is(other!.headers.get('x-ratelimit-remaining'), '19');
  });

  s('a trailing slash is no route: /v1/metadata/ and /v1/cors-proxy/ answer 404, uncounted', async ({ svc }) => {
    const paths = ['/v1/metadata/?url=ftp://x', '/v1/metadata/', '/v1/metadata//?url=ftp://x', '/v1/cors-proxy/?url=ftp://x', '/v1/cors-proxy/'];
    for (let i = 0; i < 30; i++) {
      const path = paths[i % paths.length]!;
      const res = await svc.request(path, { localAddress: '127.0.0.17' });
      assert.is(res.status, 404, path);
      assert.equal(res.json, { code: 404, message: `No such endpoint: ${new URL(path, svc.baseUrl).pathname}` });
      assert.is(res.headers.get('x-ratelimit-limit'), null);
    }
    const [counted] = await burst(svc, BAD_PROXY, 1, '127.0.0.17');
    assert.is(counted!.headers.get('x-ratelimit-remaining'), '19');
  });

  s('/openapi.yaml is not limited', async ({ svc }) => {
    await burst(svc, BAD, 21, '127.0.0.16');
    const [doc] = await burst(svc, '/openapi.yaml', 1, '127.0.0.16');
    assert.is(doc!.status, 200);
    assert.is(doc!.headers.get('x-ratelimit-limit'), null);
  });
  return s;
}

suiteFor('memory store', {}).run();

const REDIS_URL = testRedisUrl(7);
suiteFor('redis store', { REDIS_URL }, async () => {
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
}).run();

const shared = suite('rate limit across instances');
shared('two instances on one Redis share one budget per client', async () => {
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const a = await startService({ ...LIMIT, REDIS_URL });
  const b = await startService({ ...LIMIT, REDIS_URL });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) statuses.push((await (i % 2 ? a : b).request(BAD, { localAddress: '127.0.0.21' })).status);
    assert.equal(statuses, [...Array(20).fill(400), 429, 429, 429, 429]);
  } finally {
    await a.close();
    await b.close();
  }
});

shared('an unreachable Redis falls back to memory: answered, still limited, never a 500', async () => {
  const svc = await startService({ ...LIMIT, REDIS_URL: 'redis://127.0.0.1:1' });
  try {
    const res = await burst(svc, BAD, 21, '127.0.0.22');
    assert.equal(
      res.map((r) => r.status),
      [...Array(20).fill(400), 429],
    );
  } finally {
    await svc.close();
  }
});

shared('RATE_LIMIT_MAX=0 disables the limit', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const res = await burst(svc, BAD, 30, '127.0.0.23');
    assert.ok(res.every((r) => r.status === 400 && r.headers.get('x-ratelimit-limit') === null));
  } finally {
    await svc.close();
  }
});

shared('::ffff:127.0.0.2 and 127.0.0.2 are one client (TRUST_PROXY)', async () => {
  const svc = await startService({ ...LIMIT, TRUST_PROXY: 'true' });
  try {
    for (let i = 0; i < 10; i++) await svc.request(BAD, { headers: { 'x-forwarded-for': '::ffff:127.0.0.2' } });
    for (let i = 0; i < 10; i++) await svc.request(BAD, { headers: { 'x-forwarded-for': '127.0.0.2' } });
    const res = await svc.request(BAD, { headers: { 'x-forwarded-for': '::ffff:7f00:2' } });
    assert.is(res.status, 429);
    // the last X-Forwarded-For entry is the one our proxy wrote; earlier ones are the caller's
    const other = await svc.request(BAD, { headers: { 'x-forwarded-for': '127.0.0.2, 127.0.0.3' } });
    assert.is(other.status, 400);
  } finally {
    await svc.close();
  }
});

shared('IPv6 clients are counted by their /64; another /64 has its own budget (TRUST_PROXY)', async () => {
  const svc = await startService({ ...LIMIT, TRUST_PROXY: 'true' });
  try {
    const as = (ip: string) => svc.request(BAD, { headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 20; i++) assert.is((await as(`2001:db8:1:2:${i.toString(16)}::${i + 1}`)).status, 400);
    const same = await as('2001:db8:1:2:ffff:ffff:ffff:ffff');
    assert.is(same.status, 429);
    assert.is(same.headers.get('retry-after'), '10');
    const neighbour = await as('2001:db8:1:3::1');
    assert.equal([neighbour.status, neighbour.headers.get('x-ratelimit-remaining')], [400, '19']);
  } finally {
    await svc.close();
  }
});

shared.run();
