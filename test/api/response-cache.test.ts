import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { lazyBodies } from '../../src/content-coding.js';
import { ResponseStore } from '../../src/cache/response-store.js';
import { OUR_VIA } from '../../src/fetch/policy.js';
import { checkedRequest, startService, TEST_ENV, type CheckedResponse } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';

// The cached-hit fast path, through the real app (real router, handlers, metadata
// service, rate limiter) against a real upstream; the store's own bounds with a bare Koa app.

const PAGE = '<html><head><title>Cached page</title><meta property="og:description" content="é and ü"></head><body>x</body></html>';

interface Ctx {
  up: Upstream;
  app: App;
  cache: ResponseStore;
  base: string;
  server: http.Server;
  /** Upstream hits of /page so far. */
  fetched(): number;
}

async function startWithCache(env: Record<string, string>): Promise<Omit<Ctx, 'up' | 'fetched'>> {
  const config = loadConfig({ ...TEST_ENV, PROBE_IMAGES: 'false', ...env });
  const app = await createApp(config, { logger: pino({ level: 'silent' }), enrichers: [] });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { app, cache: app.responses, base, server };
}

const s = suite<Ctx>('response cache (fast path for repeated /v1/metadata)');

s.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/page': respond(200, PAGE, { 'content-type': 'text/html; charset=utf-8' }),
      '/gone': respond(404, 'no'),
    },
  });
  ctx.fetched = () => ctx.up.hits('/page');
});
s.after(async (ctx) => {
  await ctx.up.close();
});
// A fresh app per test: its stores start empty.
s.before.each(async (ctx) => {
  Object.assign(ctx, await startWithCache({ RATE_LIMIT_MAX: '0' }));
});
s.after.each(async (ctx) => {
  ctx.server.closeAllConnections();
  await new Promise<void>((resolve) => ctx.server.close(() => resolve()));
  await ctx.app.close();
});

const metaPath = (up: Upstream, pathAndQuery: string, extra = '') => `/v1/metadata?url=${encodeURIComponent(up.url(pathAndQuery).href)}${extra}`;

s('a hit answers the same bytes and headers as the miss that stored it, without routing or fetching again', async (ctx) => {
  const path = metaPath(ctx.up, '/page?a=1');
  const miss = await checkedRequest(ctx.base + path);
  assert.is(miss.status, 200);
  assert.is(ctx.cache.size, 1);
  const hit = await checkedRequest(ctx.base + path);
  assert.is(hit.status, 200);
  assert.equal(Buffer.from(hit.body), Buffer.from(miss.body));
  assert.is(hit.json.title, 'Cached page');
  assert.is(hit.json.description, 'é and ü');
  for (const res of [miss, hit]) {
    assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.is(res.headers.get('cache-control'), 'public, max-age=43200');
    assert.is(res.headers.get('access-control-allow-origin'), '*');
    assert.is(res.headers.get('content-length'), String(miss.body.length));
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  }
  assert.is.not(hit.headers.get('x-request-id'), miss.headers.get('x-request-id'));
  // The miss is served as JSON.stringify of the object, exactly what Koa itself would send.
  assert.is(miss.text, JSON.stringify(miss.json));
});

s('the stored answer is served without a second extraction (evicting the extraction cache would not matter)', async (ctx) => {
  const path = metaPath(ctx.up, '/page?b=1');
  const before = ctx.fetched();
  await checkedRequest(ctx.base + path);
  assert.is(ctx.fetched(), before + 1);
  await checkedRequest(ctx.base + path);
  await checkedRequest(ctx.base + path);
  assert.is(ctx.fetched(), before + 1);
  assert.is(ctx.cache.size, 1);
});

s('HEAD is answered from the store too: same headers, no body', async (ctx) => {
  const path = metaPath(ctx.up, '/page?c=1');
  const miss = await checkedRequest(ctx.base + path);
  const head = await checkedRequest(ctx.base + path, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(head.body.length, 0);
  assert.is(head.headers.get('content-length'), String(miss.body.length));
  assert.is(head.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(head.headers.get('cache-control'), 'public, max-age=43200');
});

s('a different query string is a different entry (prefer, extra parameters, another spelling)', async (ctx) => {
  const og = metaPath(ctx.up, '/page?d=1');
  await checkedRequest(ctx.base + og);
  await checkedRequest(ctx.base + og + '&prefer=twitter');
  await checkedRequest(ctx.base + og + '&utm_source=x');
  await checkedRequest(`${ctx.base}/v1/metadata?url=${ctx.up.url('/page?d=1').href}`); // not percent-encoded
  assert.is(ctx.cache.size, 4);
  const again = await checkedRequest(ctx.base + og + '&prefer=twitter');
  assert.is(again.status, 200);
  assert.is(ctx.cache.size, 4);
});

s('errors are never stored: 400, 422 and the 302 take the full path every time', async (ctx) => {
  for (const path of ['/v1/metadata?url=ftp://x', metaPath(ctx.up, '/gone'), '/v1/metadata']) {
    const first = await checkedRequest(ctx.base + path);
    const second = await checkedRequest(ctx.base + path);
    assert.is(second.status, first.status);
    assert.ok(first.status !== 200, `${path} is not a 200`);
    assert.is(ctx.cache.size, 0, `${path} was not stored`);
  }
  const bad = await checkedRequest(ctx.base + '/v1/metadata?url=ftp://x');
  assert.is(bad.status, 400);
  assert.is.not(bad.headers.get('cache-control'), 'public, max-age=43200');
});

s('other paths and methods pass through untouched', async (ctx) => {
  const yaml = await checkedRequest(ctx.base + '/openapi.yaml');
  assert.is(yaml.status, 200);
  const path = metaPath(ctx.up, '/page?e=1');
  await checkedRequest(ctx.base + path);
  const post = await checkedRequest(ctx.base + path, { method: 'POST' });
  assert.is(post.status, 405);
  assert.is(ctx.cache.size, 1);
});

s('a request carrying our Via is refused on a hit as on a miss (fetch loop)', async (ctx) => {
  const path = metaPath(ctx.up, '/page?f=1');
  const ok = await checkedRequest(ctx.base + path);
  assert.is(ok.status, 200);
  const looped = await checkedRequest(ctx.base + path, { headers: { via: OUR_VIA } });
  assert.is(looped.status, 422);
  assert.is(looped.json.code, 422);
});

s.run();

const limited = suite<Ctx>('response cache: hits are still rate limited');
limited.before(async (ctx) => {
  ctx.up = await startUpstream({ routes: { '/page': respond(200, PAGE, { 'content-type': 'text/html' }) } });
  ctx.fetched = () => ctx.up.hits('/page');
  Object.assign(ctx, await startWithCache({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' }));
});
limited.after(async (ctx) => {
  ctx.server.closeAllConnections();
  await new Promise<void>((resolve) => ctx.server.close(() => resolve()));
  await ctx.app.close();
  await ctx.up.close();
});

limited('every hit counts against the budget and carries the rate-limit headers; the 4th is 429', async (ctx) => {
  const url = ctx.base + metaPath(ctx.up, '/page');
  const res: CheckedResponse[] = [];
  for (let i = 0; i < 4; i++) res.push(await checkedRequest(url, { localAddress: '127.0.0.41' }));
  assert.equal(
    res.map((r) => r.status),
    [200, 200, 200, 429],
  );
  assert.equal(
    res.map((r) => r.headers.get('x-ratelimit-remaining')),
    ['2', '1', '0', '0'],
  );
  assert.equal(
    res.slice(0, 3).map((r) => r.headers.get('x-ratelimit-limit')),
    ['3', '3', '3'],
  );
  assert.is(ctx.fetched(), 1);
  assert.is.not(res[3]!.headers.get('cache-control'), 'public, max-age=43200');
  assert.equal(res[3]!.json.code, 429);
  // Another client is not limited, and gets the stored answer.
  const other = await checkedRequest(url, { localAddress: '127.0.0.42' });
  assert.is(other.status, 200);
  assert.equal(Buffer.from(other.body), Buffer.from(res[0]!.body));
});

limited.run();

const bounds = suite('response cache: bounds');

const bodies = (value: unknown) => lazyBodies(Buffer.from(JSON.stringify(value)));
const inAMinute = () => Date.now() + 60_000;

bounds('entries and bytes are bounded, oldest first out', () => {
  const cache = new ResponseStore({ maxEntries: 2, maxBytes: 1 << 20 });
  for (const n of [1, 2, 3]) cache.set(`/v1/metadata?url=http://x/${n}`, bodies({ n }), inAMinute());
  assert.is(cache.size, 2);
  assert.is(cache.get('/v1/metadata?url=http://x/1'), undefined, 'the oldest went first');
  assert.is(cache.get('/v1/metadata?url=http://x/3')?.identity.toString(), '{"n":3}');

  const small = new ResponseStore({ maxEntries: 100, maxBytes: 200 });
  for (let n = 0; n < 10; n++) small.set(`/v1/metadata?url=http://x/${n}`, bodies({ pad: 'x'.repeat(40) }), inAMinute());
  assert.ok(small.bytes <= 200, `${small.bytes} bytes held`);
  assert.ok(small.size < 10 && small.size > 0, `${small.size} entries held`);
});

bounds('an answer is served until the expiry it was stored with, and one already expired is not stored', () => {
  let now = Date.now();
  const cache = new ResponseStore({ maxEntries: 10, maxBytes: 1 << 20, now: () => now });
  const expiresAt = now + 60;
  cache.set('/v1/metadata?url=http://x/t', bodies({ v: 1 }), expiresAt);
  assert.is(cache.get('/v1/metadata?url=http://x/t')?.identity.toString(), '{"v":1}');
  now = expiresAt;
  assert.is(cache.get('/v1/metadata?url=http://x/t')?.identity.toString(), '{"v":1}', 'still served at its last millisecond');
  now += 1;
  assert.is(cache.get('/v1/metadata?url=http://x/t'), undefined, 'expired with its extraction');
  cache.set('/v1/metadata?url=http://x/u', bodies({ v: 4 }), now);
  assert.is(cache.size, 0);
});

bounds.run();

const mounted = suite('response cache: as src/app.ts mounts it (startService)');

mounted('the service answers a repeated URL from the fast path: same bytes, one entry, contract-valid', async () => {
  const up = await startUpstream({ routes: { '/page': respond(200, PAGE, { 'content-type': 'text/html; charset=utf-8' }) } });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  try {
    const path = metaPath(up, '/page?svc=1');
    const miss = await svc.request(path);
    const hit = await svc.request(path);
    assert.is(miss.status, 200);
    assert.is(svc.app.responses.size, 1);
    assert.is(up.hits('/page'), 1, 'the hit did not fetch');
    assert.is(hit.headers.get('server-timing'), 'cache;desc=hit');
    assert.equal(Buffer.from(hit.body), Buffer.from(miss.body));
    assert.is(hit.headers.get('cache-control'), 'public, max-age=43200');
  } finally {
    await svc.close();
    await up.close();
  }
});

mounted.run();
