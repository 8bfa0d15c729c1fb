import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { testRedisUrl } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { EXTRACTION_VERSION } from '../../src/cache/extraction-shape.js';
import { redisKeys } from '../../src/store/redis-keys.js';

// A stored answer expires with the extraction it was built from. The real app against a real
// upstream that counts its hits, with CACHE_TTL_MS=1500: prefer=og at 0 s fetches the page;
// prefer=twitter at 1 s is built from that extraction (no fetch) and stored; prefer=twitter again
// at 1.8 s, past the extraction's end, must fetch afresh rather than be answered from the stored
// copy. The instants are on the cache's clock, which the test moves. Run with the memory store
// and with Redis (the expiry travels with the extraction through either).

const PAGE = '<html><head><title>Lifetime</title><meta property="og:title" content="Og"><meta name="twitter:title" content="Tw"></head><body>x</body></html>';
const TTL_MS = 1500;
const REDIS_URL = testRedisUrl();

async function askThreeTimes(env: Record<string, string>): Promise<void> {
  const html = { 'content-type': 'text/html; charset=utf-8' };
  const up: Upstream = await startUpstream({ routes: { '/page': respond(200, PAGE, html), '/warm': respond(200, PAGE, html) } });
  const clock = { ms: Date.now() };
  const svc: Service = await startService(
    { CACHE_TTL_MS: String(TTL_MS), RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', ...env },
    { enrichers: [], now: () => clock.ms },
  );
  const path = (prefer: string) => `/v1/metadata?url=${encodeURIComponent(up.url('/page').href)}&prefer=${prefer}`;
  try {
    // A first request of a fresh process compiles validators and wasm: not part of the scenario.
    assert.is((await svc.request(`/v1/metadata?url=${encodeURIComponent(up.url('/warm').href)}`)).status, 200);
    const t0 = clock.ms;
    const first = await svc.request(path('og'));
    assert.is(first.status, 200);
    assert.is(first.json.title, 'Og');
    assert.is(up.hits('/page'), 1);

    clock.ms = t0 + 1000;
    const second = await svc.request(path('twitter'));
    assert.is(second.status, 200);
    assert.is(second.json.title, 'Tw');
    assert.is(second.headers.get('server-timing'), 'cache;desc=hit', 'built from the cached extraction');
    assert.is(up.hits('/page'), 1);

    clock.ms = t0 + 1800;
    if (env.REDIS_URL) {
      // Redis keeps its copy of the extraction for 1.5 s on its own clock, which no test can move.
      const redis = new Redis(env.REDIS_URL);
      try {
        const stored = redisKeys(env.REDIS_KEY_PREFIX!, EXTRACTION_VERSION).extraction(up.url('/page').href);
        await until(async () => (await redis.exists(stored)) === 0, 'Redis to let the extraction go');
      } finally {
        redis.disconnect();
      }
    }
    const third = await svc.request(path('twitter'));
    assert.is(third.status, 200);
    assert.is(third.json.title, 'Tw');
    assert.is(up.hits('/page'), 2, 'the extraction expired at 1.5 s: the stored twitter answer went with it');
    assert.match(third.headers.get('server-timing') ?? '', /^cache;desc=miss/);
  } finally {
    await svc.close();
    await up.close();
  }
}

const lifetime = suite('answer lifetime: a stored answer expires with its extraction');

lifetime('prefer=og at 0 s, prefer=twitter at 1 s and 1.8 s with a 1.5 s TTL: the third fetches (memory store)', async () => {
  await askThreeTimes({});
});

lifetime('prefer=og at 0 s, prefer=twitter at 1 s and 1.8 s with a 1.5 s TTL: the third fetches (Redis store)', async () => {
  await askThreeTimes({ REDIS_URL, REDIS_KEY_PREFIX: `lp-lifetime-${process.pid}-${Date.now()}:` });
});

lifetime.run();
