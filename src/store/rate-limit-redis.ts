// The shared rate-limit store: every instance on one Redis shares one budget per client
// (docs/ARCHITECTURE.md "Scaling out"). It keeps the rule of store/rate-limit.ts — a sliding window of `max` requests
// per `windowMs`, and a block of `blockMs` from the request past the limit — as one Lua script,
// so the block check, the count and the block itself are one atomic step: two instances
// counting the same client at once cannot both take the last request of the budget.
//
// The time comes from the caller (RateLimitOptions.now), not from Redis, so the memory and Redis
// stores read one clock and a test can drive both. Instances' clocks differ by milliseconds
// against a window of seconds.
//
// The limiter's keys carry no expiry, on purpose: Redis's memory policy for LinkPeek is
// `volatile-lru` (README "Redis memory"), which evicts only keys with an expiry, the cache's, so a
// full Redis never forgets a spent budget. Each client's keys are forgotten instead by the script
// itself: a bucket's index scores each client by when its window and block are over, and every
// request of the bucket deletes up to two clients past that moment; a bucket with traffic never
// keeps more than its clients of the last window (blocks included).

import { randomBytes } from 'node:crypto';
import { allowed, limited, type RateDecision, type RateLimitOptions, type RateLimitStore, type SpentBudget } from './rate-limit.js';
import { redisKeys, type RedisKeys } from './redis-keys.js';
import type { RedisClient } from './redis.js';

// Deletes up to two clients of the bucket whose time is over (not the one being counted: its score
// was just moved past now). KEYS[3] is the bucket's index; ARGV[6] the bucket's key base.
const REAP = `
local function reap(now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 2)) do
    redis.call('DEL', ARGV[6] .. 'log:' .. id, ARGV[6] .. 'block:' .. id)
    redis.call('ZREM', KEYS[3], id)
  end
end
`;

// KEYS: the client's log, block, bucket index. ARGV: now, windowMs, max, blockMs, a member naming
// this request (two requests of one millisecond are two members), the bucket's key base, the
// client id. Returns {allowed (1/0), remaining, reset or block end (ms)}; Redis replies with
// integers only, hence the ceilings.
const HIT = `${REAP}
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local block = tonumber(ARGV[4])
local blocked = redis.call('GET', KEYS[2])
if blocked and tonumber(blocked) > now then
  return {0, 0, math.ceil(tonumber(blocked))}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < max then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('ZADD', KEYS[3], 'GT', now + window, ARGV[7])
  reap(now)
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return {1, max - count - 1, math.ceil(oldest + window)}
end
local ends = now + block
redis.call('SET', KEYS[2], ends)
redis.call('ZADD', KEYS[3], 'GT', ends, ARGV[7])
reap(now)
return {0, 0, math.ceil(ends)}
`;

// Adds what one instance counted while it could not reach Redis (or before Redis lost its data):
// KEYS and ARGV[6], ARGV[7] as HIT; ARGV[1] now, ARGV[2] windowMs, ARGV[3] the block's end (0:
// none), then pairs of time and member. A member already there is not added twice (ZADD NX), so
// the same spending sent again counts once; a longer block already there is kept.
const RECORD = `${REAP}
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local blockEnds = tonumber(ARGV[3])
local forget = now
for i = 8, #ARGV, 2 do
  local at = tonumber(ARGV[i])
  if at > now - window then
    redis.call('ZADD', KEYS[1], 'NX', at, ARGV[i + 1])
    forget = math.max(forget, at + window)
  end
end
if blockEnds > now then
  local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
  if blockEnds > blocked then redis.call('SET', KEYS[2], blockEnds) end
  forget = math.max(forget, blockEnds)
end
if forget > now then redis.call('ZADD', KEYS[3], 'GT', forget, ARGV[7]) end
reap(now)
return 1
`;

const HIT_COMMAND = 'linkpeekRateLimit2';
const RECORD_COMMAND = 'linkpeekRateLimitRecord';

type ScriptReply = [allowed: number, remaining: number, resetOrUntilMs: number];
type Scripted = {
  [HIT_COMMAND](log: string, block: string, index: string, ...args: (string | number)[]): Promise<ScriptReply>;
  [RECORD_COMMAND](log: string, block: string, index: string, ...args: (string | number)[]): Promise<number>;
};

/** This process's part of each member's name; with a counter, members never collide. */
export const INSTANCE = randomBytes(6).toString('base64url');
let sequence = 0;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: RedisClient & Scripted;
  private readonly keys: RedisKeys;
  private readonly now: () => number;

  /**
   * `keyPrefix` (REDIS_KEY_PREFIX) keeps deployments that share one Redis apart; `instance` names
   * this instance in what it records (this process's, unless a test runs several).
   */
  constructor(
    redis: RedisClient,
    private readonly opts: RateLimitOptions,
    keyPrefix = 'lp:',
    private readonly instance = INSTANCE,
  ) {
    // defineCommand sends a script once and then calls it by its hash (EVALSHA).
    if (!(HIT_COMMAND in redis)) redis.defineCommand(HIT_COMMAND, { numberOfKeys: 3, lua: HIT });
    if (!(RECORD_COMMAND in redis)) redis.defineCommand(RECORD_COMMAND, { numberOfKeys: 3, lua: RECORD });
    this.redis = redis as RedisClient & Scripted;
    this.keys = redisKeys(keyPrefix);
    this.now = opts.now ?? Date.now;
  }

  async hit(id: string): Promise<RateDecision> {
    const { opts } = this;
    const now = this.now();
    sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
    const keys = this.keys.rateLimit(id);
    const [ok, remaining, atMs] = await this.redis[HIT_COMMAND](
      keys.log,
      keys.block,
      keys.index,
      now,
      opts.windowMs,
      opts.max,
      opts.blockMs,
      `${now}:${this.instance}:${sequence}`,
      keys.bucketBase,
      id,
    );
    return ok === 1 ? allowed(opts, remaining, atMs) : limited(opts, atMs, now);
  }

  /** Adds one client's spending counted elsewhere (the memory store during an outage). */
  async record(spent: SpentBudget): Promise<void> {
    const keys = this.keys.rateLimit(spent.clientId);
    const pairs = spent.times.flatMap((at, i) => [at, `${at}:${this.instance}:kept:${ordinalAt(spent.times, i)}`]);
    await this.redis[RECORD_COMMAND](
      keys.log,
      keys.block,
      keys.index,
      this.now(),
      this.opts.windowMs,
      spent.blockedUntil ?? 0,
      '',
      '',
      keys.bucketBase,
      spent.clientId,
      ...pairs,
    );
  }

  close(): void {}
}

/** How many earlier times equal times[i]: with the time, a name that is the same on every upload. */
function ordinalAt(times: readonly number[], i: number): number {
  let n = 0;
  while (i - n - 1 >= 0 && times[i - n - 1] === times[i]) n++;
  return n;
}
