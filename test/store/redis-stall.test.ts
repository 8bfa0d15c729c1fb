import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { Failover } from '../../src/store/failover.js';
import { connectRedis, type RedisClient } from '../../src/store/redis.js';
import { FallbackExtractionStore, MemoryExtractionStore, RedisExtractionStore, type Extraction } from '../../src/cache/extraction-store.js';
import { startFreezingProxy, type FreezingProxy } from '../helpers/freezing-proxy.js';
import { testRedisAddress } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { EXTRACTION_VERSION } from '../../src/cache/extraction-shape.js';
import { redisKeys } from '../../src/store/redis-keys.js';

// A Redis that accepts connections and never answers (here: a proxy in front of the real Redis
// that holds every byte) trips the same failover as one that refuses connections, within the
// deadline; once tripped, operations skip Redis until the background PING answers again.

const DEADLINE_MS = 200;
const expiresAt = Date.now() + 60_000;
const failure = (reason: string): Extraction => ({ ok: false, code: 'FETCH_FAILED', reason, expiresAt });

interface Ctx {
  proxy: FreezingProxy;
  redis: RedisClient;
}
const stall = suite<Ctx>('a Redis that stops answering');
stall.before.each(async (ctx) => {
  ctx.proxy = await startFreezingProxy(testRedisAddress());
  ctx.redis = await connectRedis(ctx.proxy.url(9), pino({ level: 'silent' }), DEADLINE_MS);
});
stall.after.each(async (ctx) => {
  ctx.redis.disconnect();
  await ctx.proxy.close();
});

stall('trips the failover at the deadline; later operations go to memory without sending Redis a byte', async ({ proxy, redis }) => {
  const changes: boolean[] = [];
  // The background check is left to the test (a long interval): every byte sent is an operation's.
  const failover = new Failover({ deadlineMs: DEADLINE_MS, check: () => redis.ping(), checkIntervalMs: 3_600_000, onChange: (d) => changes.push(d) });
  const memory = new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 });
  const store = new FallbackExtractionStore(new RedisExtractionStore(redis, 'lp:'), memory, failover);
  try {
    await store.set('stall:a', failure('in redis'));
    assert.equal(await store.get('stall:a'), failure('in redis'), 'Redis answers before the freeze');

    proxy.freeze();
    await memory.set('stall:a', failure('in memory'));
    const started = performance.now();
    assert.equal(await store.get('stall:a'), failure('in memory'), 'the memory store answers');
    const waited = performance.now() - started;
    assert.ok(waited >= DEADLINE_MS - 5 && waited < DEADLINE_MS + 1000, `answered after the deadline (${waited.toFixed(0)} ms)`);
    assert.equal(changes, [true]);
    assert.ok(failover.degraded);
    assert.ok(proxy.bytesFromClients > 0, 'the first operation did reach the frozen Redis');

    const sent = proxy.bytesFromClients;
    for (let i = 0; i < 20; i++) assert.equal(await store.get('stall:a'), failure('in memory'));
    await store.set('stall:b', failure('b'));
    assert.ok(await store.claim('stall:c', 1000));
    assert.is(proxy.bytesFromClients, sent, 'tripped: no operation tried Redis again');

    await failover.check();
    assert.ok(failover.degraded, 'a check while frozen fails');
    proxy.thaw();
    await failover.check();
    assert.not.ok(failover.degraded, 'the check brings Redis back once it answers');
    assert.equal(changes, [true, false]);
    assert.equal(await store.get('stall:a'), failure('in redis'), 'back on Redis');
  } finally {
    failover.close();
    await redis.del(redisKeys('lp:', EXTRACTION_VERSION).extraction('stall:a'));
  }
});

stall('a Redis that goes silent with no traffic at all is noticed by the background check', async ({ proxy, redis }) => {
  let checks = 0;
  const failover = new Failover({ deadlineMs: DEADLINE_MS, check: () => (checks++, redis.ping()), checkIntervalMs: 100 });
  try {
    await until(() => checks >= 3, 'three background checks');
    assert.not.ok(failover.degraded, 'three checks answered: not degraded');
    proxy.freeze();
    await until(() => failover.degraded, 'degraded with no operation run', 2_000);
    proxy.thaw();
    await until(() => !failover.degraded, 'back once it answers', 2_000);
  } finally {
    failover.close();
  }
});

stall('ioredis itself rejects a command nobody answers, as a backstop (commandTimeout, at least 1 s)', async ({ proxy, redis }) => {
  proxy.freeze();
  const started = performance.now();
  const err = await redis.get('stall:x').then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(err, 'the command is rejected');
  assert.match(err.message, /timed out/i);
  const waited = performance.now() - started;
  assert.ok(waited >= 990 && waited < 3000, `rejected after ${waited.toFixed(0)} ms`);
});

stall.run();
