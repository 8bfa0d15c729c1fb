import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { redisKeys } from '../../src/store/redis-keys.js';
import { startService } from '../helpers/service.js';
import { startSentinels } from '../helpers/redis-topologies.js';
import { mostAllowedInAnyWindow, statusesOf, steadyClient } from '../helpers/steady-client.js';
import { until } from '../helpers/until.js';

// Two instances of the real app on a master with one replica, watched by three sentinels
// (Debian's redis-server, --sentinel, on free loopback ports). A client keeps asking across both
// while a sentinel fails the master over: no 500, the limit holds (allowing for the failover
// window: at most 1.2 x in any window), and both instances write to the new master within 10 s.

const BAD = '/v1/metadata?url=ftp://x'; // answered 400 at once, and counted
const WINDOW_MS = 3_000;
const LIMIT = 20;

test('a Sentinel failover under load: both instances follow the new master, the limit holds, no 500', async () => {
  const set = await startSentinels();
  const env = {
    REDIS_SENTINELS: set.sentinels.join(','),
    REDIS_SENTINEL_MASTER: set.masterName,
    RATE_LIMIT_MAX: String(LIMIT),
    RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
  };
  const instances = [await startService(env), await startService(env)];
  const client = steadyClient(instances, '127.0.0.31', 20);
  const newMaster = new Redis(set.replica.url);
  try {
    await until(() => client.answers.length >= 40, 'load before the failover');
    const started = Date.now();
    await set.failover();
    // Each instance, asked by a client of its own, writes that client's log to the new master.
    const followed = await Promise.all(
      instances.map(async (svc, i) => {
        const address = `127.0.0.${32 + i}`;
        const log = redisKeys('lp:').rateLimit(address).log;
        await until(
          async () => {
            await svc.request(BAD, { localAddress: address });
            return (await newMaster.zcard(log)) > 0 && (await svc.request('/healthz')).json.redis === 'ok';
          },
          `instance ${i} on the new master`,
          10_000,
        );
        return Date.now() - started;
      }),
    );
    assert.ok(
      followed.every((ms) => ms <= 10_000),
      `followed within 10 s: ${followed.join(', ')} ms`,
    );
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    await client.stop();
    assert.equal(statusesOf(client.answers), [400, 429], 'only 400 (counted) and 429: no 500');
    const most = mostAllowedInAnyWindow(client.answers, WINDOW_MS);
    assert.ok(most <= LIMIT * 1.2, `at most ${LIMIT * 1.2} in any ${WINDOW_MS} ms; was ${most}`);
    assert.ok(most >= LIMIT, `the client did reach the limit (${most})`);
  } finally {
    await client.stop();
    newMaster.disconnect();
    for (const svc of instances) await svc.close();
    await set.stop();
  }
});

test.run();
