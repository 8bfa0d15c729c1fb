import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startService } from '../helpers/service.js';
import { mostAllowedInAnyWindow, statusesOf, steadyClient } from '../helpers/steady-client.js';
import { until } from '../helpers/until.js';
import { startRedis } from '../provision.mjs';

// Three instances of the real app on a Redis of their own, a client's requests spread over them,
// and Redis stopped under them: with the default RATE_LIMIT_OUTAGE (share), each instance enforces
// a third of the limit, so the client gets at most 1.2 x the limit in any window during the
// outage (with `local`: 3 x), no request fails, and /healthz says degraded. A window of 3 s keeps
// the test to two windows of outage.

const WINDOW_MS = 3_000;
const LIMIT = 20;

test('Redis stopped under 3 instances: at most 1.2 x the limit in any window, /healthz degraded', async () => {
  const redis = await startRedis();
  const env = { REDIS_URL: redis.url, RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) };
  const instances = [await startService(env), await startService(env), await startService(env)];
  const admin = new Redis(redis.url);
  let client: ReturnType<typeof steadyClient> | undefined;
  try {
    // Every instance has beaten, and then read a count of three on its next beat.
    await until(async () => (await admin.zcard('lp:instances')) === 3, 'three instances in the heartbeat set');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    admin.disconnect();
    client = steadyClient(instances, '127.0.0.41', 15);
    const { answers } = client;
    await until(() => answers.length >= 10, 'some requests before the outage');
    const outageFrom = Date.now();
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 2 * WINDOW_MS));
    for (const svc of instances) {
      const health = await svc.request('/healthz');
      assert.equal([health.status, health.json.status, health.json.redis], [200, 'degraded', 'down']);
    }
    await client.stop();
    assert.ok(answers.filter((a) => a.at >= outageFrom).length > 100, 'the client kept asking during the outage');
    assert.equal(statusesOf(answers), [400, 429], 'only 400 (counted) and 429: no 500');
    const most = mostAllowedInAnyWindow(answers, WINDOW_MS);
    assert.ok(most <= LIMIT * 1.2, `at most ${LIMIT * 1.2} in any ${WINDOW_MS} ms; was ${most}`);
  } finally {
    await client?.stop();
    admin.disconnect();
    for (const svc of instances) await svc.close();
    await redis.stop();
  }
});

test.run();
