import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFreezingProxy } from '../helpers/freezing-proxy.js';
import { startService } from '../helpers/service.js';
import { respond, startUpstream } from '../helpers/upstream.js';
import { testRedisAddress } from '../helpers/redis.js';
import { until } from '../helpers/until.js';

// The whole service while Redis stops answering (accepts TCP, never replies): every data endpoint
// keeps answering from the memory stores, each request waits at most one Redis deadline, and
// /healthz says degraded; when Redis answers again the instance goes back to it by itself.

const html = { 'content-type': 'text/html' };
const DEADLINE_MS = 200;
/** Generous: the behaviour under test is a deadline of 200 ms; a loaded 2-core machine adds noise. */
const BOUND_MS = 2000;

test('answers 200 while a frozen proxy holds Redis (fast-path hit, extraction-cache hit, uncached page), /healthz degraded, then ok again', async () => {
  const proxy = await startFreezingProxy(testRedisAddress());
  const up = await startUpstream({ routes: { '*': respond(200, '<title>Up</title>', html) } });
  const svc = await startService({
    REDIS_URL: proxy.url(9),
    REDIS_TIMEOUT_MS: String(DEADLINE_MS),
    RATE_LIMIT_MAX: '1000',
    PROBE_IMAGES: 'false',
  });
  const page = (path: string, extra = '') => `/v1/metadata?${new URLSearchParams({ url: up.url(path).href })}${extra}`;
  const timed = async (path: string) => {
    const started = performance.now();
    const res = await svc.request(path, { localAddress: '127.0.0.61' });
    return { res, ms: performance.now() - started };
  };
  try {
    const cachedPath = page(`/cached-${Date.now()}`);
    const warm = await timed(cachedPath);
    assert.is(warm.res.status, 200);
    // Redis answering first (on a loaded machine the first ping through the proxy can miss its 200 ms).
    await until(async () => (await svc.request('/healthz')).json.redis === 'ok', '/healthz to say redis ok before the freeze', 6_000);

    proxy.freeze();
    const hit = await timed(cachedPath);
    assert.is(hit.res.status, 200, 'a cached hit on the fast path');
    assert.is(hit.res.json.title, 'Up');
    assert.ok(hit.ms < BOUND_MS, `the fast-path hit took ${hit.ms.toFixed(0)} ms`);

    const other = await timed(cachedPath + '&prefer=twitter');
    assert.is(other.res.status, 200, 'the same page through the full path');
    assert.ok(other.ms < BOUND_MS, `took ${other.ms.toFixed(0)} ms`);

    const fresh = await timed(page(`/fresh-${Date.now()}`));
    assert.is(fresh.res.status, 200, 'an uncached page');
    assert.ok(fresh.ms < BOUND_MS, `took ${fresh.ms.toFixed(0)} ms`);

    const health = await svc.request('/healthz');
    assert.equal([health.json.status, health.json.redis], ['degraded', 'down']);
    assert.ok(svc.app.degraded);

    // Tripped: a burst of requests does not wait on Redis again, one by one or all at once.
    const burst = performance.now();
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => svc.request(page(`/burst-${i}-${Date.now()}`), { localAddress: '127.0.0.61' })));
    assert.ok(all.every((r) => r.status === 200));
    assert.ok(performance.now() - burst < BOUND_MS, 'the burst did not wait out a Redis deadline each');

    proxy.thaw();
    // Redis's part of /healthz (its status could stay degraded by the event loop on a loaded machine).
    const redisOk = async () => {
      const { json } = await svc.request('/healthz');
      return json.redis === 'ok' && !json.degraded_by.includes('redis');
    };
    await until(redisOk, '/healthz to say redis ok again once Redis answers', 6_000);
    assert.not.ok(svc.app.degraded);
  } finally {
    await svc.close();
    await up.close();
    await proxy.close();
  }
});

test('/healthz says degraded within seconds when Redis goes silent and no request touches it', async () => {
  const proxy = await startFreezingProxy(testRedisAddress());
  const svc = await startService({ REDIS_URL: proxy.url(9), REDIS_TIMEOUT_MS: String(DEADLINE_MS) });
  try {
    assert.is((await svc.request('/healthz')).json.status, 'ok');
    proxy.freeze();
    await until(async () => (await svc.request('/healthz')).json.status === 'degraded', '/healthz to say degraded', 5_000);
  } finally {
    await svc.close();
    await proxy.close();
  }
});

test.run();
