import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createServer } from '../../src/server.js';
import { checkedRequest, TEST_ENV, type CheckedResponse } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { testRedisUrl } from '../helpers/redis.js';

// Cached hits are answered by a middleware after the rate limit (src/api/cached-answer.ts). The
// real app, its real stores (memory and Redis), a real upstream; a spy right after that
// middleware tells which requests went on to the asset routes, the router and the handlers.

const PAGE = '<html><head><title>Fast</title><meta property="og:image" content="/i.png"></head><body></body></html>';
const REDIS_URL = testRedisUrl();

interface Running {
  app: App;
  base: string;
  /** Request targets that went past the stored answers, in order. */
  pastStored: string[];
  /** Log lines written by the app's logger. */
  lines: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function start(env: Record<string, string>): Promise<Running> {
  const config = loadConfig({ ...TEST_ENV, PROBE_IMAGES: 'false', LOG_LEVEL: 'info', ...env });
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = await createApp(config, { logger: pino({ level: 'info', base: null }, sink), enrichers: [] });
  const pastStored: string[] = [];
  const steps = app.routes.steps('getMetadata');
  const at = steps.findIndex((m) => m.name === 'cachedAnswers');
  assert.ok(at > 0, 'the stored answers are a step of the metadata operation, after its rate limit');
  steps.splice(at + 1, 0, async (ctx, next) => {
    pastStored.push(ctx.originalUrl);
    await next();
  });
  const server: http.Server = createServer(app, config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pastStored,
    lines,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

const metaPath = (up: Upstream, page: string) => `/v1/metadata?url=${encodeURIComponent(up.url(page).href)}`;
const without = (res: CheckedResponse, ...names: string[]) => [...res.headers].filter(([name]) => !names.includes(name)).sort(([a], [b]) => a.localeCompare(b));

const s = suite<{ up: Upstream; svc: Running }>('cached hits answered from the stored answers (memory rate limit)');
s.before(async (ctx) => {
  ctx.up = await startUpstream({ routes: { '/page': respond(200, PAGE, { 'content-type': 'text/html' }) } });
  ctx.svc = await start({ RATE_LIMIT_MAX: '1000', RATE_LIMIT_WINDOW_MS: '60000' });
});
s.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

s('a hit goes no further than the stored answers; the miss before it and other spellings do; no other operation has stored answers', async ({ up, svc }) => {
  const path = metaPath(up, '/page?k=1');
  svc.pastStored.length = 0;
  await checkedRequest(svc.base + path);
  await checkedRequest(svc.base + path);
  await checkedRequest(svc.base + path, { method: 'HEAD' });
  await checkedRequest(svc.base + path + '&prefer=twitter');
  assert.equal(svc.pastStored, [path, path + '&prefer=twitter']);
  for (const other of ['proxyImage', 'getOpenApiDocument', 'getHealth', 'getShowcase'])
    assert.not.ok(
      svc.app.routes.steps(other).some((m) => m.name === 'cachedAnswers'),
      other,
    );
});

s('a hit sends exactly the headers of the miss that stored it, but its own request id, date, remaining budget and timing', async ({ up, svc }) => {
  const path = metaPath(up, '/page?k=2');
  const miss = await checkedRequest(svc.base + path, { localAddress: '127.0.0.61' });
  const hit = await checkedRequest(svc.base + path, { localAddress: '127.0.0.61' });
  const own = ['date', 'x-request-id', 'x-ratelimit-remaining', 'server-timing'];
  assert.equal(without(hit, ...own), without(miss, ...own));
  assert.match(miss.headers.get('server-timing')!, /^cache;desc=miss, fetch;dur=[\d.]+, scan;dur=[\d.]+, enrich;dur=[\d.]+$/);
  assert.is(hit.headers.get('server-timing'), 'cache;desc=hit');
  assert.equal([miss.headers.get('x-ratelimit-remaining'), hit.headers.get('x-ratelimit-remaining')], ['999', '998']);
  assert.equal(Buffer.from(hit.body), Buffer.from(miss.body));
  assert.is(hit.json.image.url, up.url('/i.png').href);
});

s('a hit is logged and counted like any request: one line with its request id, and /metrics counts it', async ({ up, svc }) => {
  const path = metaPath(up, '/page?k=3');
  const count = (text: string) => Number(/^linkpeek_http_requests_total\{route="\/v1\/metadata",status="200"\} (\d+)$/m.exec(text)?.[1]);
  await checkedRequest(svc.base + path);
  const before = count((await checkedRequest(svc.base + '/metrics')).text);
  svc.lines.length = 0;
  const hit = await checkedRequest(svc.base + path, { localAddress: '127.0.0.62' });
  const metrics = await checkedRequest(svc.base + '/metrics');
  const logged = svc.lines.filter((l) => l.msg === 'request');
  assert.is(logged.length, 2); // the hit and /metrics
  const { time, ms, ...line } = logged[0]!;
  assert.type(time, 'number');
  assert.type(ms, 'number');
  assert.equal(line, {
    level: 30,
    reqId: hit.headers.get('x-request-id'),
    method: 'GET',
    url: path,
    status: 200,
    ip: '127.0.0.62',
    msg: 'request',
  });
  assert.is(count(metrics.text), before + 1, 'the hit is counted');
});

s("fragment leak: neither a miss's log line nor a hit's holds the url parameter's fragment", async ({ up, svc }) => {
  const secret = 'access_token=ya29.secret&state=x';
  const path = metaPath(up, `/page?k=9#${secret}`);
  svc.lines.length = 0;
  const miss = await checkedRequest(svc.base + path);
  const hit = await checkedRequest(svc.base + path);
  assert.is(hit.headers.get('server-timing'), 'cache;desc=hit');
  const logged = svc.lines.filter((l) => l.msg === 'request').map((l) => [l.reqId, l.url]);
  const expected = `/v1/metadata?url=${encodeURIComponent(up.url('/page?k=9').href)}`;
  assert.equal(logged, [
    [miss.headers.get('x-request-id'), expected],
    [hit.headers.get('x-request-id'), expected],
  ]);
  assert.not.match(JSON.stringify(svc.lines), 'ya29.secret');
});

s('a hit refused by the rate limit is answered as any 429, counted once', async ({ up }) => {
  const svc = await start({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' });
  try {
    const path = metaPath(up, '/page?k=4');
    const res: CheckedResponse[] = [];
    for (let i = 0; i < 4; i++) res.push(await checkedRequest(svc.base + path, { localAddress: '127.0.0.63' }));
    assert.equal(
      res.map((r) => r.status),
      [200, 200, 429, 429],
    );
    assert.equal(svc.pastStored, [path], 'the miss alone: refusals stop at the rate limit');
    assert.equal(
      res.map((r) => r.headers.get('x-ratelimit-remaining')),
      ['1', '0', '0', '0'],
    );
    assert.equal(res[2]!.json, { code: 429, message: res[2]!.json.message });
    assert.ok(Number(res[2]!.headers.get('retry-after')) >= 59);
    const limited = await checkedRequest(svc.base + '/metrics');
    assert.match(limited.text, /^linkpeek_rate_limit_rejections_total\{route="\/v1\/metadata"\} 2$/m);
  } finally {
    await svc.close();
  }
});

s('with TRUST_PROXY a hit is counted for the last X-Forwarded-For entry, as a miss is', async ({ up }) => {
  const svc = await start({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000', TRUST_PROXY: 'true' });
  try {
    const path = metaPath(up, '/page?k=5');
    const as = (client: string) => checkedRequest(svc.base + path, { headers: { 'x-forwarded-for': `198.51.100.1, ${client}` } });
    assert.equal([(await as('203.0.113.7')).status, (await as('203.0.113.7')).status, (await as('203.0.113.7')).status], [200, 200, 429]);
    assert.is((await as('203.0.113.8')).status, 200, 'another client behind the same balancer');
    const ips = svc.lines.filter((l) => l.msg === 'request').map((l) => l.ip);
    assert.equal(ips, ['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.8']);
  } finally {
    await svc.close();
  }
});

s.run();

const shared = suite<{ up: Upstream; redis: Redis }>('cached hits answered from the stored answers (shared Redis rate limit)');
shared.before(async (ctx) => {
  ctx.up = await startUpstream({ routes: { '/page': respond(200, PAGE, { 'content-type': 'text/html' }) } });
  ctx.redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await ctx.redis.connect();
});
shared.after(async (ctx) => {
  ctx.redis.disconnect();
  await ctx.up.close();
});

shared('hits on two instances draw on one budget in Redis', async ({ up, redis }) => {
  const [client, filler] = ['127.0.0.64', '127.0.0.65'];
  // Budgets left in Redis by an earlier run of this file.
  const stale = [...(await redis.keys(`lp:rl*${client}*`)), ...(await redis.keys(`lp:rl*${filler}*`))];
  if (stale.length) await redis.del(...stale);
  const env = { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000', REDIS_URL };
  const [a, b] = [await start(env), await start(env)];
  try {
    const path = metaPath(up, '/page?k=6');
    // Fill both response caches from another client, then alternate hits between the instances.
    await checkedRequest(a.base + path, { localAddress: filler });
    await checkedRequest(b.base + path, { localAddress: filler });
    assert.equal([a.app.responses.size, b.app.responses.size], [1, 1]);
    a.pastStored.length = 0;
    b.pastStored.length = 0;
    const statuses = [];
    for (const svc of [a, b, a, b]) statuses.push((await checkedRequest(svc.base + path, { localAddress: client })).status);
    assert.equal(statuses, [200, 200, 200, 429]);
    assert.equal([a.pastStored, b.pastStored], [[], []], 'hits and the refusal alike stop before routing');
  } finally {
    await a.close();
    await b.close();
  }
});

shared.run();
