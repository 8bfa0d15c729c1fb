import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createMetricsServer } from '../../src/metrics-server.js';
import { startService } from '../helpers/service.js';
import { endless, respond, startUpstream } from '../helpers/upstream.js';
import { png } from '../proxy/images.js';
import { rawGet } from '../proxy/harness.js';
import { testRedisUrl } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { EXTRACTION_VERSION } from '../../src/cache/extraction-shape.js';
import { redisKeys } from '../../src/store/redis-keys.js';

// Metrics that tell the truth: every cache hit counted (the fast path's too), the default process
// and Node metrics under their standard names, /metrics on its own listener with METRICS_PORT;
// Redis keys under REDIS_KEY_PREFIX; a streamed answer cut after its headers counted as cut.

const html = { 'content-type': 'text/html' };
const count = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}()[\]"/.]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

test('after a miss and a hit (answered by the fast path), the cache counter shows one of each', async () => {
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>x</title>', html) } });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  try {
    const page = `/v1/metadata?url=${encodeURIComponent(up.url('/p').href)}`;
    assert.is((await svc.request(page)).headers.get('server-timing')?.split(',')[0], 'cache;desc=miss');
    assert.is((await svc.request(page)).headers.get('server-timing'), 'cache;desc=hit');
    const text = (await svc.request('/metrics')).text;
    assert.is(count(text, 'linkpeek_cache_requests_total{outcome="miss"}'), 1);
    assert.is(count(text, 'linkpeek_cache_requests_total{outcome="hit"}'), 1);
    assert.is(count(text, 'linkpeek_cache_requests_total{outcome="shared"}'), 0);
  } finally {
    await svc.close();
    await up.close();
  }
});

test('default process and Node metrics carry their standard names, no linkpeek_ prefix', async () => {
  const svc = await startService();
  try {
    const text = (await svc.request('/metrics')).text;
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      assert.match(text, new RegExp(`^${name} `, 'm'), name);
    }
    assert.not.match(text, /^linkpeek_(process|nodejs)_/m);
  } finally {
    await svc.close();
  }
});

test('with METRICS_PORT, /metrics is served on its own listener and the public port answers 404', async () => {
  const svc = await startService({ METRICS_PORT: '9464' });
  const server = createMetricsServer(svc.app.metrics);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const publicPort = await svc.request('/metrics');
    assert.is(publicPort.status, 404);
    assert.equal(publicPort.json, { code: 404, message: 'No such endpoint: /metrics' });
    const own = await fetch(`${base}/metrics`);
    assert.is(own.status, 200);
    assert.is(own.headers.get('cache-control'), 'no-store');
    assert.is(own.headers.get('access-control-allow-origin'), null, 'not meant for browsers');
    assert.match(await own.text(), /^linkpeek_http_requests_total\{route="\/metrics",status="404"\} 1$/m);
    const other = await fetch(`${base}/v1/metadata`);
    assert.is(other.status, 404);
    assert.is(await other.text(), 'Only GET /metrics is served here.\n');
  } finally {
    server.close();
    await svc.close();
  }
});

test('/metrics is not on the public port unless METRICS_PUBLIC asks for it: 404', async () => {
  assert.is(loadConfig({}).metricsPublic, false);
  const svc = await startService({ METRICS_PUBLIC: 'false' });
  try {
    const res = await svc.request('/metrics');
    assert.is(res.status, 404);
    assert.equal(res.json, { code: 404, message: 'No such endpoint: /metrics' });
  } finally {
    await svc.close();
  }
});

test('METRICS_PORT and REDIS_KEY_PREFIX are checked when the service starts', () => {
  assert.is(loadConfig({}).metricsPort, null);
  assert.is(loadConfig({}).redisKeyPrefix, 'lp:');
  assert.throws(
    () => loadConfig({ METRICS_PORT: '0' }),
    (err: unknown) => err instanceof ConfigError && err.setting === 'METRICS_PORT',
  );
  assert.throws(
    () => loadConfig({ REDIS_KEY_PREFIX: 'has space:' }),
    (err: unknown) => err instanceof ConfigError && err.setting === 'REDIS_KEY_PREFIX',
  );
});

test('REDIS_KEY_PREFIX puts every key of a deployment under its prefix', async () => {
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>x</title>', html) } });
  const prefix = `deploy-${process.pid}-${Date.now()}:`;
  const url = testRedisUrl(12);
  const svc = await startService({ REDIS_URL: url, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_MAX: '5', PROBE_IMAGES: 'false' });
  const redis = new Redis(url);
  try {
    const target = up.url('/p').href;
    assert.is((await svc.request(`/v1/metadata?url=${encodeURIComponent(target)}`)).status, 200);
    const keys = (await redis.keys(`${prefix}*`)).sort();
    assert.ok(keys.includes(redisKeys(prefix, EXTRACTION_VERSION).extraction(target)), `extraction under the prefix: ${keys.join(', ')}`);
    assert.ok(
      keys.some((k) => k.startsWith(`${prefix}rl`)),
      `rate limit under the prefix: ${keys.join(', ')}`,
    );
    assert.is(await redis.exists(redisKeys('lp:', EXTRACTION_VERSION).extraction(target)), 0, 'nothing under the default prefix');
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await svc.close();
    await up.close();
  }
});

test('a proxied image cut at the size cap after its headers is logged and counted as cut, not 200', async () => {
  const up = await startUpstream({ routes: { '/huge.png': endless(Buffer.concat([png(), Buffer.alloc(16 * 1024)]), { 'content-type': 'image/png' }) } });
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const svc = await startService({ RATE_LIMIT_MAX: '0', MAX_IMAGE_BYTES: '65536' }, { logger: pino({ level: 'info', base: null }, sink) });
  try {
    const res = await rawGet(`${svc.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(up.url('/huge.png').href)}`);
    assert.is(res.status, 200, 'the headers had left');
    assert.is(res.aborted, true);
    await until(() => lines.some((l) => l.msg === 'request'), 'the request line', 2_000);
    const line = lines.find((l) => l.msg === 'request')!;
    assert.is(line.status, 'cut');
    assert.is(line.level, 40);
    assert.is(line.reason, 'FETCH_FAILED: image over MAX_IMAGE_BYTES, cut mid-stream');
    const text = (await svc.request('/metrics')).text;
    assert.is(count(text, 'linkpeek_http_requests_total{route="/v1/cors-proxy",status="cut"}'), 1);
    assert.is(count(text, 'linkpeek_http_requests_total{route="/v1/cors-proxy",status="200"}'), 0);
  } finally {
    await svc.close();
    await up.close();
  }
});

test('a proxied image sent whole is logged 200 once it has ended', async () => {
  const image = png();
  const up = await startUpstream({ routes: { '/small.png': respond(200, image, { 'content-type': 'image/png' }) } });
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const res = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(`${svc.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(up.url('/small.png').href)}`, resolve),
    );
    res.resume();
    await new Promise((r) => res.on('end', r));
    const counted = async () => (await svc.request('/metrics')).text;
    await until(async () => (await counted()).includes('route="/v1/cors-proxy"'), 'the request to be counted');
    const text = await counted();
    assert.is(count(text, 'linkpeek_http_requests_total{route="/v1/cors-proxy",status="200"}'), 1);
    assert.is(count(text, 'linkpeek_http_requests_total{route="/v1/cors-proxy",status="cut"}'), 0);
  } finally {
    await svc.close();
    await up.close();
  }
});

test.run();
