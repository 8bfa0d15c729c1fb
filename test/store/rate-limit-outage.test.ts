import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { Failover } from '../../src/store/failover.js';
import { Fleet } from '../../src/store/fleet.js';
import { OutageSafeRateLimitStore, type OutagePolicy } from '../../src/store/rate-limit-outage.js';
import { RedisRateLimitStore } from '../../src/store/rate-limit-redis.js';
import { testRedisUrl } from '../helpers/redis.js';

// Three instances of one fleet on the real Redis, each with its own connection, on a clock the
// test drives. An outage is each connection closed (a command then fails at once, as with a
// refused connection); the store coming back is the connection made again. The spec's limit:
// 20 per 10 s, then a 10 s block.

const T0 = 1_800_000_000_000;
const SPEC = { max: 20, windowMs: 10_000, blockMs: 10_000 };
const REDIS_URL = testRedisUrl(14);

interface Instance {
  redis: Redis;
  store: OutageSafeRateLimitStore;
  failover: Failover;
  fleet: Fleet;
}

interface Fleet3 {
  at(ms: number): void;
  instances: Instance[];
  /** `n` requests of `client`, spread round-robin over the instances; how many were allowed. */
  spread(client: string, n: number): Promise<number>;
  outage(): Promise<void>;
  back(): Promise<void>;
  close(): void;
}

async function fleetOf3(policy: OutagePolicy): Promise<Fleet3> {
  let t = T0;
  const now = () => t;
  const opts = { ...SPEC, now };
  const admin = new Redis(REDIS_URL);
  await admin.flushdb();
  admin.disconnect();
  const instances = await Promise.all(
    ['a', 'b', 'c'].map(async (name) => {
      const redis = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
      await redis.connect();
      const late: { store?: OutageSafeRateLimitStore } = {};
      const fleet = new Fleet(redis, 'lp:instances', () => void late.store?.rejoin(true), now, name);
      const failover = new Failover({
        deadlineMs: 1000,
        check: () => fleet.beat(),
        checkIntervalMs: 3_600_000,
        onChange: (down) => void (down || late.store?.rejoin()),
      });
      const store = (late.store = new OutageSafeRateLimitStore(new RedisRateLimitStore(redis, opts, 'lp:', name), opts, failover, fleet, policy));
      return { redis, store, failover, fleet };
    }),
  );
  // Two rounds of heartbeats: the first instance to beat saw only itself in the first.
  for (let round = 0; round < 2; round++) for (const i of instances) await i.failover.check();
  let turn = 0;
  return {
    at: (ms) => (t = T0 + ms),
    instances,
    async spread(client, n) {
      let allowed = 0;
      for (let k = 0; k < n; k++) if ((await instances[turn++ % 3]!.store.hit(client)).allowed) allowed++;
      return allowed;
    },
    async outage() {
      await Promise.all(
        instances.map(async (i) => {
          const ended = new Promise((resolve) => i.redis.once('end', resolve));
          i.redis.disconnect();
          await ended;
        }),
      );
    },
    async back() {
      for (const i of instances) {
        if (i.redis.status === 'end') await i.redis.connect();
        else if (i.redis.status !== 'ready') await new Promise((resolve) => i.redis.once('ready', resolve));
      }
      for (const i of instances) await i.failover.check();
      // rejoin runs from the failover's onChange; let its writes land
      for (const i of instances) await i.store.rejoin();
    },
    close() {
      for (const i of instances) {
        i.failover.close();
        i.store.close();
        i.redis.disconnect();
      }
    },
  };
}

const share = suite('rate limit through an outage: share (the default)');

share('each of 3 instances counted by the heartbeat enforces 6 of 20: 18 in a window across the fleet', async () => {
  const f = await fleetOf3('share');
  try {
    assert.equal(
      f.instances.map((i) => i.fleet.size),
      [3, 3, 3],
    );
    await f.outage();
    f.at(1_000);
    assert.is(await f.spread('alone-fresh', 60), 18);
    assert.ok(f.instances.every((i) => i.failover.degraded));
    f.at(11_500); // the window and the block are over: 18 again, never 3 x 20
    assert.is(await f.spread('alone-fresh', 60), 18);
  } finally {
    f.close();
  }
});

share('a client that spent its 20 through Redis gets nothing more when Redis goes, until its window ends', async () => {
  const f = await fleetOf3('share');
  try {
    f.at(0);
    assert.is(await f.spread('spent', 20), 20);
    await f.outage();
    f.at(2_000);
    assert.is(await f.spread('spent', 30), 0, 'each instance already counted 6 or 7 of them');
  } finally {
    f.close();
  }
});

share('half a budget spent before the outage leaves the fleet the other half, not 3 x 20', async () => {
  const f = await fleetOf3('share');
  try {
    f.at(0);
    assert.is(await f.spread('half', 12), 12); // 4 on each instance
    await f.outage();
    f.at(1_000);
    assert.is(await f.spread('half', 30), 6, '6 - 4 = 2 more on each instance');
  } finally {
    f.close();
  }
});

share('what was allowed alone is added to Redis when it is back: the fleet does not grant it twice', async () => {
  const f = await fleetOf3('share');
  try {
    await f.outage();
    f.at(1_000);
    assert.is(await f.spread('rejoin', 9), 9);
    await f.back();
    assert.ok(f.instances.every((i) => !i.failover.degraded));
    f.at(2_000);
    assert.is(await f.spread('rejoin', 20), 11, '20 - 9 spent during the outage');
  } finally {
    f.close();
  }
});

share('a Redis that lost its data (restart without persistence) gets back the budgets still counted', async () => {
  const f = await fleetOf3('share');
  try {
    f.at(0);
    assert.is(await f.spread('restart', 15), 15);
    const admin = new Redis(REDIS_URL);
    await admin.flushdb(); // what a restart without persistence leaves
    admin.disconnect();
    f.at(500);
    for (const i of f.instances) await i.failover.check(); // the heartbeat notices
    for (const i of f.instances) await i.store.rejoin(true);
    f.at(1_000);
    assert.is(await f.spread('restart', 20), 5);
  } finally {
    f.close();
  }
});

share.run();

const closed = suite('rate limit through an outage: closed');

closed('every request is refused while Redis is gone, and nobody is held back once it is back', async () => {
  const f = await fleetOf3('closed');
  try {
    await f.outage();
    f.at(1_000);
    const [decision] = await Promise.all([f.instances[0]!.store.hit('closed')]);
    assert.equal(decision, { allowed: false, limit: 20, remaining: 0, resetSeconds: (T0 + 11_000) / 1000, retryAfterSeconds: 10 });
    assert.is(await f.spread('closed', 30), 0);
    await f.back();
    f.at(1_500);
    assert.is(await f.spread('closed', 25), 20);
  } finally {
    f.close();
  }
});

closed.run();

const local = suite('rate limit through an outage: local');

local('each instance grants the whole limit: 3 x 20 across the fleet (why it is not the default)', async () => {
  const f = await fleetOf3('local');
  try {
    await f.outage();
    f.at(1_000);
    assert.is(await f.spread('local', 90), 60);
  } finally {
    f.close();
  }
});

local.run();
