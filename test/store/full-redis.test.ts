import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createCacheStores } from '../../src/cache/stores.js';
import type { Extraction } from '../../src/cache/extraction-store.js';
import { createSharedStores } from '../../src/store/shared-stores.js';
import { redisKeys } from '../../src/store/redis-keys.js';
import { startRedis } from '../provision.mjs';

// A Redis of its own with a small maxmemory and the policy compose.yaml sets (volatile-lru): the
// cache fills it many times over while a client asks 30 times. Redis evicts cache entries (they
// carry an expiry) and never the limiter's keys (they carry none): the limit stays exactly 20,
// and neither the limiter nor the cache ever leaves the shared store.

const MAXMEMORY = 4 * 1024 * 1024;

test('a Redis full of cache entries keeps the limit exact (20 of 30) and nothing fails over', async () => {
  const server = await startRedis(undefined, ['--maxmemory', String(MAXMEMORY), '--maxmemory-policy', 'volatile-lru']);
  const changes: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void changes.push(line) });
  const config = loadConfig({ REDIS_URL: server.url, RATE_LIMIT_MAX: '20' });
  const shared = await createSharedStores(config, logger);
  const { extractions } = createCacheStores(config, shared.redis, shared.cacheFailover);
  const admin = new Redis(server.url);
  try {
    const page = 'x'.repeat(8 * 1024);
    const value = (i: number): Extraction => ({ ok: false, code: 'FETCH_FAILED', reason: `${i}${page}`, expiresAt: Date.now() + 3_600_000 });
    let allowed = 0;
    // 30 requests of one client, each after 60 cache writes of 8 KB: 14 MB written in all.
    for (let request = 0; request < 30; request++) {
      await Promise.all(Array.from({ length: 60 }, (_, i) => extractions.set(`https://full.example/${request}/${i}`, value(i))));
      if ((await shared.limiter!.client.hit('full-client')).allowed) allowed++;
      assert.is(shared.redisUp(), true, `still on the shared store after request ${request + 1}`);
    }
    assert.is(allowed, 20);
    const info = await admin.info('stats');
    const evicted = Number(/evicted_keys:(\d+)/.exec(info)![1]);
    assert.ok(evicted > 1000, `Redis evicted cache entries (${evicted})`);
    const keys = redisKeys(config.redisKeyPrefix).rateLimit('full-client');
    assert.is(await admin.zcard(keys.log), 20, 'the client log kept all 20');
    assert.is(await admin.pttl(keys.log), -1, 'the limiter keys carry no expiry: never evicted');
    assert.ok(await admin.exists(keys.block), 'the block is there');
    assert.equal(changes, [], 'no warning: nothing failed over');
  } finally {
    admin.disconnect();
    extractions.close?.();
    shared.close();
    await server.stop();
  }
});

test('the limiter forgets a client once its window and block are over, with no expiry of its keys', async () => {
  const server = await startRedis();
  const admin = new Redis(server.url);
  let t = 1_800_000_000_000;
  const { RedisRateLimitStore } = await import('../../src/store/rate-limit-redis.js');
  const { bucketOf } = await import('../../src/store/redis-keys.js');
  const store = new RedisRateLimitStore(admin, { max: 2, windowMs: 10_000, blockMs: 10_000, now: () => t });
  try {
    // Two clients of one bucket: the second one's requests reap the first once it is over.
    const first = 'client-0';
    const second = Array.from({ length: 1000 }, (_, i) => `client-${i + 1}`).find((id) => bucketOf(id) === bucketOf(first))!;
    for (let i = 0; i < 3; i++) await store.hit(first); // 2 allowed, then blocked until +10 s
    const keys = redisKeys('lp:').rateLimit(first);
    assert.equal([await admin.exists(keys.log), await admin.exists(keys.block)], [1, 1]);
    t += 9_999;
    await store.hit(second);
    assert.equal([await admin.exists(keys.log), await admin.exists(keys.block)], [1, 1], 'its block is not over yet');
    t += 2;
    await store.hit(second);
    assert.equal([await admin.exists(keys.log), await admin.exists(keys.block), await admin.zscore(keys.index, first)], [0, 0, null], 'forgotten');
  } finally {
    admin.disconnect();
    await server.stop();
  }
});

test.run();
