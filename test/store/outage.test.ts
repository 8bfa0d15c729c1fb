import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startRedis } from '../provision.mjs';

// Three instances of the real app on a Redis of their own, a client's requests spread over them,
// and Redis stopped under them: with the default RATE_LIMIT_OUTAGE (share), each instance enforces
// a third of the limit, so the client gets at most 1.2 x the limit in any window during the
// outage (before: 3 x), no request fails, and /healthz says degraded. A window of 3 s keeps the
// test to two windows of outage.

const BAD = '/v1/metadata?url=ftp://x'; // answered 400 at once, and counted
const WINDOW_MS = 3_000;
const LIMIT = 20;

test('Redis stopped under 3 instances: at most 1.2 x the limit in any window, /healthz degraded', async () => {
  const redis = await startRedis();
  const env = { REDIS_URL: redis.url, RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) };
  const instances = [await startService(env), await startService(env), await startService(env)];
  const admin = new Redis(redis.url);
  const answers: { at: number; status: number }[] = [];
  let loading = true;
  let load: Promise<void> | undefined;
  try {
    // Every instance has beaten, and then read a count of three on its next beat.
    await until(async () => (await admin.zcard('lp:instances')) === 3, 'three instances in the heartbeat set');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    admin.disconnect();
    load = (async () => {
      for (let i = 0; loading; i++) {
        const res = await instances[i % 3]!.request(BAD, { localAddress: '127.0.0.41' });
        answers.push({ at: Date.now(), status: res.status });
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();
    await until(() => answers.length >= 10, 'some requests before the outage');
    const outageFrom = Date.now();
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 2 * WINDOW_MS));
    for (const svc of instances) {
      const health = await svc.request('/healthz');
      assert.equal([health.status, health.json.status, health.json.redis], [200, 'degraded', 'down']);
    }
    loading = false;
    await load;
    const during = answers.filter((a) => a.at >= outageFrom);
    assert.ok(during.length > 100, `the client kept asking during the outage (${during.length})`);
  } finally {
    loading = false;
    await load;
    admin.disconnect();
    for (const svc of instances) await svc.close();
    await redis.stop();
  }
  assert.equal([...new Set(answers.map((a) => a.status))].sort(), [400, 429], 'only 400 (counted) and 429: no 500');
  const allowed = answers.filter((a) => a.status === 400).map((a) => a.at);
  const most = Math.max(...allowed.map((at) => allowed.filter((t) => t >= at && t < at + WINDOW_MS).length));
  assert.ok(most <= LIMIT * 1.2, `at most ${LIMIT * 1.2} in any ${WINDOW_MS} ms; was ${most}`);
});

test.run();
