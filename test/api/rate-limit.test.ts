import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startService, type Service } from '../helpers/service.js';

// Issue 2 "Rate limit", against the real app with real time (short windows, no fake clocks).
// Each test speaks from its own loopback address, so budgets never mix between tests.

const BAD = '/v1/metadata?url=ftp://x'; // answered 400 at once, and still counted
const BAD_PROXY = '/v1/cors-proxy?url=ftp://x';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function burst(svc: Service, path: string, n: number, from: string) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await svc.request(path, { localAddress: from }));
  return out;
}

function suiteFor(name: string, env: Record<string, string>, prepare: () => Promise<void> = async () => {}) {
  const s = suite<{ svc: Service }>(`rate limit (${name})`);
  s.before(async (ctx) => {
    await prepare();
    ctx.svc = await startService({ RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '1500', ...env });
  });
  s.after(async (ctx) => ctx.svc.close());

  s('exactly 20 requests pass, the 21st is 429 with Retry-After and a JSON body', async ({ svc }) => {
    const res = await burst(svc, BAD, 21, '127.0.0.11');
    assert.equal(res.slice(0, 20).map((r) => r.status), Array(20).fill(400));
    assert.equal(res.slice(0, 20).map((r) => r.headers.get('x-ratelimit-remaining')), Array.from({ length: 20 }, (_, i) => String(19 - i)));
    const limited = res[20]!;
    assert.is(limited.status, 429);
    assert.is(limited.headers.get('retry-after'), '2');
    assert.is(limited.headers.get('x-ratelimit-limit'), '20');
    assert.is(limited.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(limited.json, { code: 429, message: 'Too many requests; retry in 2 seconds.' });
  });

  s('the budget is shared by /v1/metadata and /v1/cors-proxy; the proxy 429 is {error}', async ({ svc }) => {
    await burst(svc, BAD, 10, '127.0.0.12');
    await burst(svc, BAD_PROXY, 10, '127.0.0.12');
    const [limited] = await burst(svc, BAD_PROXY, 1, '127.0.0.12');
    assert.is(limited!.status, 429);
    assert.equal(limited!.json, { error: 'Too many requests; retry in 2 seconds.' });
  });

  s('the block lasts a full window from the request that hit the limit', async ({ svc }) => {
    const start = Date.now();
    await burst(svc, BAD, 20, '127.0.0.13');
    await sleep(start + 1000 - Date.now());
    const [hit] = await burst(svc, BAD, 1, '127.0.0.13'); // t ≈ 1.0 s: over the limit, blocked until ≈ 2.5 s
    assert.is(hit!.status, 429);
    await sleep(start + 1800 - Date.now()); // the first window is over, the block is not
    const [still] = await burst(svc, BAD, 1, '127.0.0.13');
    assert.is(still!.status, 429);
    assert.is(still!.headers.get('retry-after'), '1');
    await sleep(start + 2700 - Date.now());
    const [free] = await burst(svc, BAD, 1, '127.0.0.13');
    assert.is(free!.status, 400);
  });

  s('clients are counted apart', async ({ svc }) => {
    await burst(svc, BAD, 20, '127.0.0.14');
    const [other] = await burst(svc, BAD, 1, '127.0.0.15');
    assert.is(other!.status, 400);
    assert.is(other!.headers.get('x-ratelimit-remaining'), '19');
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

const REDIS_URL = 'redis://127.0.0.1:6379/7';
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
  const a = await startService({ RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '3000', REDIS_URL });
  const b = await startService({ RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '3000', REDIS_URL });
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
  const svc = await startService({ RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '1500', REDIS_URL: 'redis://127.0.0.1:1' });
  try {
    const res = await burst(svc, BAD, 21, '127.0.0.22');
    assert.equal(res.map((r) => r.status), [...Array(20).fill(400), 429]);
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
  const svc = await startService({ RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '1500', TRUST_PROXY: 'true' });
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

shared.run();
