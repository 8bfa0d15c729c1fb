// The shared rate-limit store: every instance on one Redis shares one budget per client
// (docs/ARCHITECTURE.md "Scaling out"). It keeps the rule of store/rate-limit.ts — a sliding window of `max` requests
// per `windowMs`, and a block of `blockMs` from the request past the limit — as one Lua script,
// so the block check, the count and the block itself are one atomic step: two instances
// counting the same client at once cannot both take the last request of the budget.
//
// The time comes from the caller (RateLimitOptions.now), not from Redis, so the memory and Redis
// stores read one clock and a test can drive both. Instances' clocks differ by milliseconds
// against a window of seconds. Key expiry only frees memory: every decision reads the stored times.

import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { allowed, limited, type RateDecision, type RateLimitOptions, type RateLimitStore } from './rate-limit.js';

// KEYS[1]: the client's log, a sorted set of its allowed requests scored by time (ms).
// KEYS[2]: the client's block, the time it ends (ms), expiring then.
// ARGV: now, windowMs, max, blockMs, a member naming this request (two requests of one
// millisecond are two members).
// Returns {allowed (1/0), remaining, reset or block end (ms)}; Redis replies with integers only,
// hence the ceilings.
const SCRIPT = `
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
  redis.call('PEXPIRE', KEYS[1], math.ceil(window))
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return {1, max - count - 1, math.ceil(oldest + window)}
end
local ends = now + block
redis.call('SET', KEYS[2], ends, 'PX', math.ceil(block))
return {0, 0, math.ceil(ends)}
`;

const COMMAND = 'linkpeekRateLimit';

type ScriptReply = [allowed: number, remaining: number, resetOrUntilMs: number];
type WithScript = Redis & {
  [COMMAND](log: string, block: string, now: number, windowMs: number, max: number, blockMs: number, member: string): Promise<ScriptReply>;
};

/** This process's part of each member's name; with a counter, members never collide. */
const INSTANCE = randomBytes(6).toString('base64url');
let sequence = 0;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: WithScript;
  private readonly namespace: string;
  private readonly now: () => number;

  /** `keyPrefix` (REDIS_KEY_PREFIX) keeps deployments that share one Redis apart. */
  constructor(
    redis: Redis,
    private readonly opts: RateLimitOptions,
    keyPrefix = 'lp:',
  ) {
    // defineCommand sends the script once and then calls it by its hash (EVALSHA).
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: SCRIPT });
    this.redis = redis as WithScript;
    this.namespace = `${keyPrefix}rl`;
    this.now = opts.now ?? Date.now;
  }

  async hit(id: string): Promise<RateDecision> {
    const { opts } = this;
    const now = this.now();
    sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
    const [ok, remaining, atMs] = await this.redis[COMMAND](
      `${this.namespace}:log:${id}`,
      `${this.namespace}:block:${id}`,
      now,
      opts.windowMs,
      opts.max,
      opts.blockMs,
      `${now}:${INSTANCE}:${sequence}`,
    );
    return ok === 1 ? allowed(opts, remaining, atMs) : limited(opts, atMs, now);
  }

  close(): void {}
}
