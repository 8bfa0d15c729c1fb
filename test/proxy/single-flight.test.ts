// Concurrent requests for one image share one upstream fetch (src/proxy/image-flight.ts): a real
// upstream on loopback counts its requests; each client gets every byte on its own stream, and a
// client going away does not end the others' fetch.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { ServerResponse } from 'node:http';
import { loadConfig } from '../../src/config.js';
import { createSafeFetch, type SafeFetchService } from '../../src/fetch/fetcher.js';
import { createImageProxy, type ImageProxyWithFlights } from '../../src/proxy/proxy.js';
import { startService, TEST_ENV, type Service } from '../helpers/service.js';
import { startUpstream, TEST_CA_FILE, type Upstream } from '../helpers/upstream.js';
import { rawGet } from './harness.js';
import { pngOfSize } from './images.js';
import { until } from '../helpers/until.js';

interface Ctx {
  up: Upstream;
  held: ServerResponse[];
  service: Service;
  fetcher: SafeFetchService;
  proxy: ImageProxyWithFlights;
}
const test = suite<Ctx>('image proxy single flight');
const IMAGE = pngOfSize(300 * 1024);

test.before.each(async (ctx) => {
  ctx.held = [];
  ctx.up = await startUpstream({ routes: { '/held.png': (_req, res) => void ctx.held.push(res as ServerResponse) } });
  const env = { UPSTREAM_CA_FILE: TEST_CA_FILE, RATE_LIMIT_MAX: '0' };
  const config = loadConfig({ ...TEST_ENV, ...env });
  ctx.fetcher = createSafeFetch(config);
  ctx.proxy = createImageProxy({ safeFetch: ctx.fetcher.safeFetch, config });
  ctx.service = await startService(env, { proxy: ctx.proxy });
});
test.after.each(async (ctx) => {
  for (const res of ctx.held) res.destroy();
  await ctx.service.close();
  await ctx.fetcher.close();
  await ctx.up.close();
});

const proxied = (ctx: Ctx, fragment = '') => `${ctx.service.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(ctx.up.url('/held.png').href + fragment)}`;
const key = (ctx: Ctx) => ctx.up.url('/held.png').href;

function answer(res: ServerResponse, image = IMAGE): void {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(image.length) });
  res.end(image);
}

test('three clients asking for one image at once (one with a fragment) share one upstream fetch, and each gets every byte', async (ctx) => {
  const all = [rawGet(proxied(ctx)), rawGet(proxied(ctx, '#b')), rawGet(proxied(ctx))];
  await until(() => ctx.held.length === 1 && ctx.proxy.flights.members(key(ctx)) === 3, 'one upstream fetch with three members');
  answer(ctx.held[0]!);
  const answers = await Promise.all(all);
  for (const res of answers) {
    assert.equal([res.status, res.aborted, res.headers['content-type'], res.headers['content-length']], [200, false, 'image/png', String(IMAGE.length)]);
    assert.ok(res.body.equals(IMAGE));
  }
  assert.is(ctx.up.hits('/held.png'), 1);
  assert.is(ctx.proxy.flights.size, 0, 'the finished flight is no longer joinable');
});

test("a client going away does not end the others' fetch", async (ctx) => {
  const leaving = http.get(proxied(ctx), { agent: false });
  leaving.on('error', () => {});
  const staying = rawGet(proxied(ctx));
  await until(() => ctx.held.length === 1 && ctx.proxy.flights.members(key(ctx)) === 2, 'one upstream fetch with two members');
  leaving.destroy();
  await until(() => ctx.proxy.flights.members(key(ctx)) === 1, 'one member left');
  answer(ctx.held[0]!);
  const res = await staying;
  assert.equal([res.status, res.aborted], [200, false]);
  assert.ok(res.body.equals(IMAGE));
  assert.is(ctx.up.hits('/held.png'), 1);
});

test('every client going away ends the upstream fetch and frees its slot', async (ctx) => {
  const gone = [http.get(proxied(ctx), { agent: false }), http.get(proxied(ctx), { agent: false })];
  for (const req of gone) req.on('error', () => {});
  await until(() => ctx.held.length === 1 && ctx.proxy.flights.members(key(ctx)) === 2, 'one upstream fetch with two members');
  for (const req of gone) req.destroy();
  await until(() => ctx.fetcher.limiter.inFlight === 0, 'no fetch in flight');
  assert.is(ctx.proxy.flights.size, 0);
});

test('a request after the flight has streamed past its first chunk starts a fetch of its own', async (ctx) => {
  const first = rawGet(proxied(ctx));
  await until(() => ctx.held.length === 1, 'one upstream fetch held');
  answer(ctx.held[0]!);
  assert.is((await first).status, 200);
  const second = rawGet(proxied(ctx));
  await until(() => ctx.held.length === 2, 'two upstream fetches held');
  answer(ctx.held[1]!);
  assert.ok((await second).body.equals(IMAGE));
  assert.is(ctx.up.hits('/held.png'), 2);
});

test('a client that stops reading while another reads the whole image gets every byte later, through a fetch of its own', async (ctx) => {
  // Larger than what loopback's socket buffers hold for a client that does not read (a few MB),
  // under MAX_IMAGE_BYTES (8 MiB).
  const big = pngOfSize(7 * 1024 * 1024);
  let resume!: () => void;
  const slow = new Promise<{ status: number; body: Buffer; complete: boolean }>((resolve, reject) => {
    const req = http.get(proxied(ctx), { agent: false }, (res) => {
      res.pause();
      const chunks: Buffer[] = [];
      resume = () => {
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), complete: res.complete }));
        res.resume();
      };
    });
    req.on('error', reject);
  });
  const fast = rawGet(proxied(ctx));
  await until(() => ctx.held.length === 1 && ctx.proxy.flights.members(key(ctx)) === 2, 'one upstream fetch with two members');
  answer(ctx.held[0]!, big);
  const got = await fast;
  assert.equal([got.status, got.aborted], [200, false]);
  assert.ok(got.body.equals(big), 'the fast client is not held back by the one that stopped');
  await until(() => ctx.held.length === 2, "the slow client's own fetch");
  answer(ctx.held[1]!, big);
  resume();
  const late = await slow;
  assert.equal([late.status, late.complete], [200, true]);
  assert.ok(late.body.equals(big));
  assert.is(ctx.up.hits('/held.png'), 2);
});

test.run();
