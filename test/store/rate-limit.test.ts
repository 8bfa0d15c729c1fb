import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { MemoryRateLimitStore, type RateDecision, type RateLimitOptions, type RateLimitStore } from '../../src/store/rate-limit.js';
import { RedisRateLimitStore } from '../../src/store/rate-limit-redis.js';
import { bucketOf } from '../../src/store/redis-keys.js';
import { testRedisUrl } from '../helpers/redis.js';

// One suite, run against the memory store and the real Redis store, both reading a clock the
// test drives: no test sleeps through a window. The settings are the spec's (20 per 10 s, then a
// 10 s block). Each test counts its own client, so tests never share a budget.

const T0 = 1_800_000_000_000; // epoch ms, a whole second
const SPEC = { max: 20, windowMs: 10_000, blockMs: 10_000 };
const REDIS_URL = testRedisUrl(13);

interface Ctx {
  at(ms: number): void;
  store: RateLimitStore;
  hits(id: string, n: number): Promise<RateDecision[]>;
}

/** A store built on a test clock; `at(ms)` sets the clock to T0 + ms. */
type Make = (opts: RateLimitOptions) => Promise<{ store: RateLimitStore; close(): Promise<void> }>;

function rulesFor(name: string, make: Make) {
  const s = suite<Ctx & { close(): Promise<void> }>(`rate-limit rule (${name})`);
  s.before(async (ctx) => {
    let t = T0;
    const made = await make({ ...SPEC, now: () => t });
    ctx.at = (ms) => (t = T0 + ms);
    ctx.store = made.store;
    ctx.close = made.close;
    ctx.hits = async (id, n) => {
      const out: RateDecision[] = [];
      for (let i = 0; i < n; i++) out.push(await made.store.hit(id));
      return out;
    };
  });
  s.before.each((ctx) => ctx.at(0));
  s.after(async (ctx) => ctx.close());

  s('exactly max requests pass, counting down; the next one is refused for the whole block', async ({ at, hits }) => {
    at(1_000);
    const res = await hits('burst', 21);
    assert.equal(
      res.slice(0, 20).map((d) => [d.allowed, d.remaining]),
      Array.from({ length: 20 }, (_, i) => [true, 19 - i]),
    );
    assert.equal(res[0], { allowed: true, limit: 20, remaining: 19, resetSeconds: (T0 + 11_000) / 1000, retryAfterSeconds: 0 });
    assert.equal(res[20], { allowed: false, limit: 20, remaining: 0, resetSeconds: (T0 + 11_000) / 1000, retryAfterSeconds: 10 });
  });

  s('1 request at 0 s, 19 at 9.7 s and 20 at 10.1 s: 20 of the last 39 pass', async ({ at, hits }) => {
    at(0);
    const first = await hits('edge', 1);
    at(9_700);
    const before = await hits('edge', 19);
    at(10_100);
    const after = await hits('edge', 20);
    assert.equal(
      [first, before, after].map((burst) => burst.filter((d) => d.allowed).length),
      [1, 19, 1],
    );
    // the one from 0 s has left the window and freed exactly one place
    assert.equal(after[0], { allowed: true, limit: 20, remaining: 0, resetSeconds: Math.ceil((T0 + 19_700) / 1000), retryAfterSeconds: 0 });
    assert.equal(after[1], { allowed: false, limit: 20, remaining: 0, resetSeconds: Math.ceil((T0 + 20_100) / 1000), retryAfterSeconds: 10 });
  });

  s('no double burst at a window edge: 20 just before 10 s leave no room just after', async ({ at, hits }) => {
    at(9_900);
    assert.ok((await hits('double', 20)).every((d) => d.allowed));
    at(10_100);
    const [next] = await hits('double', 1);
    assert.is(next!.allowed, false);
  });

  s('a request counts for exactly one window; Reset is when the oldest leaves it', async ({ at, hits }) => {
    at(0);
    await hits('slide', 10);
    at(5_000);
    await hits('slide', 10);
    at(10_000); // the first 10 leave the window now: it is (now - 10 s, now]
    const res = await hits('slide', 11);
    assert.equal(
      res.slice(0, 10).map((d) => d.remaining),
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    );
    assert.is(res[0]!.resetSeconds, (T0 + 15_000) / 1000);
    assert.is(res[10]!.allowed, false);
  });

  s('the block lasts blockMs from the refused request, past the end of the window', async ({ at, hits }) => {
    at(0);
    await hits('block', 20);
    at(9_000);
    const [refused] = await hits('block', 1); // blocked until 19 s
    assert.is(refused!.retryAfterSeconds, 10);
    at(12_000); // the window is over, the block is not
    const [still] = await hits('block', 1);
    assert.equal(still, { allowed: false, limit: 20, remaining: 0, resetSeconds: (T0 + 19_000) / 1000, retryAfterSeconds: 7 });
    at(18_500);
    assert.is((await hits('block', 1))[0]!.retryAfterSeconds, 1);
    at(19_000);
    // requests refused during the block were not counted: the whole budget is back
    const free = await hits('block', 20);
    assert.equal(
      free.map((d) => d.allowed),
      Array(20).fill(true),
    );
    assert.is(free[0]!.remaining, 19);
  });

  s('clients are counted apart', async ({ at, hits }) => {
    at(0);
    await hits('apart-a', 21);
    const [other] = await hits('apart-b', 1);
    assert.equal([other!.allowed, other!.remaining], [true, 19]);
  });

  return s;
}

rulesFor('memory', async (opts) => {
  const store = new MemoryRateLimitStore(opts);
  return { store, close: async () => store.close() };
}).run();

rulesFor('redis', async (opts) => {
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  const store = new RedisRateLimitStore(redis, opts);
  return { store, close: async () => redis.disconnect() };
}).run();

const shared = suite('rate-limit store (redis, shared)');

shared('two instances hitting one client at once take exactly max between them (one atomic script)', async () => {
  const a = new Redis(REDIS_URL);
  const b = new Redis(REDIS_URL);
  try {
    await a.flushdb();
    const now = () => T0;
    const stores = [new RedisRateLimitStore(a, { ...SPEC, now }), new RedisRateLimitStore(b, { ...SPEC, now })];
    const res = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]!.hit('race')));
    assert.is(res.filter((d) => d.allowed).length, 20);
    assert.is(res.filter((d) => !d.allowed).length, 20);
  } finally {
    a.disconnect();
    b.disconnect();
  }
});

shared('a key prefix keeps two deployments on one Redis apart', async () => {
  const redis = new Redis(REDIS_URL);
  try {
    await redis.flushdb();
    const now = () => T0;
    const blue = new RedisRateLimitStore(redis, { ...SPEC, now }, 'blue:');
    const green = new RedisRateLimitStore(redis, { ...SPEC, now }, 'green:');
    for (let i = 0; i < 21; i++) await blue.hit('prefix');
    assert.is((await green.hit('prefix')).remaining, 19);
    const b = `{b${bucketOf('prefix')}}`;
    assert.equal((await redis.keys('*')).sort(), [
      `blue:rl:${b}:block:prefix`,
      `blue:rl:${b}:index`,
      `blue:rl:${b}:log:prefix`,
      `green:rl:${b}:index`,
      `green:rl:${b}:log:prefix`,
    ]);
  } finally {
    redis.disconnect();
  }
});

shared.run();
