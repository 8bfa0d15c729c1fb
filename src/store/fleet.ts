// How many instances share the store, as last seen: each instance writes a heartbeat into one
// sorted set of the store (its id, scored by the time) once a second, as the rate limiter's
// background check (store/failover.ts), and reads back how many beat within FLEET_STALE_MS.
// During an outage that count is what the fleet's limit is shared by (rate-limit-outage.ts).
//
// The same heartbeat tells whether the store lost its data (a restart without persistence): an
// instance that beat before and finds itself missing knows every budget counted there is gone.
// The set carries no expiry (README "Redis memory": only keys with one may be evicted); each beat
// drops the instances gone quiet, so it holds the live fleet.

import { INSTANCE } from './rate-limit-redis.js';
import type { RedisClient } from './redis.js';

/** An instance that has not beaten for this long is not counted (five missed beats). */
export const FLEET_STALE_MS = 5_000;

// KEYS[1]: the set. ARGV: now, stale ms, this instance. Returns {instances, 1 if this instance was
// already there}.
const BEAT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
local added = redis.call('ZADD', KEYS[1], now, ARGV[3])
return {redis.call('ZCARD', KEYS[1]), 1 - added}
`;
const BEAT_COMMAND = 'linkpeekHeartbeat';
type Scripted = { [BEAT_COMMAND](key: string, now: number, staleMs: number, instance: string): Promise<[number, number]> };

export class Fleet {
  private seen = 1;
  /** When this instance's last beat landed (ms); 0 before the first. */
  private lastBeat = 0;
  private readonly redis: RedisClient & Scripted;

  /**
   * `onLostData`: called when a beat finds this instance missing from the set it was in.
   * `instance`: this instance's name in the set (this process's, unless a test runs several).
   */
  constructor(
    redis: RedisClient,
    private readonly key: string,
    private readonly onLostData: () => void,
    private readonly now: () => number = Date.now,
    private readonly instance = INSTANCE,
  ) {
    if (!(BEAT_COMMAND in redis)) redis.defineCommand(BEAT_COMMAND, { numberOfKeys: 1, lua: BEAT });
    this.redis = redis as RedisClient & Scripted;
  }

  /** Live instances as last seen (this one included); 1 before the first beat. */
  get size(): number {
    return this.seen;
  }

  /** One heartbeat: a round trip that fails when the store cannot answer. */
  async beat(): Promise<void> {
    const now = this.now();
    const [instances, wasThere] = await this.redis[BEAT_COMMAND](this.key, now, FLEET_STALE_MS, this.instance);
    this.seen = Math.max(1, instances);
    // Missing after a recent beat: the set was lost, not pruned (pruning takes FLEET_STALE_MS).
    const expected = this.lastBeat > 0 && now - this.lastBeat < FLEET_STALE_MS;
    this.lastBeat = now;
    if (expected && wasThere === 0) this.onLostData();
  }
}
