// The Redis connection shared by the rate limiter and the cache: one Redis (REDIS_URL), a Redis
// Cluster (REDIS_CLUSTER_NODES) or a master found through Sentinel (REDIS_SENTINELS and
// REDIS_SENTINEL_MASTER), all through ioredis, which follows a cluster's MOVED and ASK redirects
// and its slot changes, and asks the sentinels for the new master after a failover.
//
// Set to fail fast: with ioredis's defaults (an offline queue, 20 retries a command) an outage
// queues commands and hangs requests; here a command fails at once when the connection is down,
// and the callers fall back to their memory stores; when Redis holds the connection but does not
// answer, store/failover.ts gives up on the operation at `commandTimeoutMs` (REDIS_TIMEOUT_MS) and
// falls back the same way. A READONLY answer (the master we hold was made a replica) drops the
// connection so that it is made again to whatever is master now.
// ioredis is loaded only when Redis is configured: an instance on its memory stores does not
// carry the client (loading it costs ~14 MB of resident memory).

import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

/** One connection or a cluster of them: the commands LinkPeek sends work on both. */
export type RedisClient = Redis | Cluster;

export type RedisTarget = { url: string } | { clusterNodes: string[] } | { sentinels: string[]; masterName: string };

/** The Redis the settings name, or null: memory stores. */
export function redisTarget(config: Pick<Config, 'redisUrl' | 'redisClusterNodes' | 'redisSentinels' | 'redisSentinelMaster'>): RedisTarget | null {
  if (config.redisClusterNodes) return { clusterNodes: config.redisClusterNodes };
  if (config.redisSentinels) return { sentinels: config.redisSentinels, masterName: config.redisSentinelMaster };
  return config.redisUrl ? { url: config.redisUrl } : null;
}

/** "host:port" or "[v6]:port" as ioredis's { host, port }. */
export function hostPort(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

function connectionOptions(commandTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    // A command nobody answers is rejected rather than kept waiting forever (its reply, should it
    // come, still lands on it: replies are matched in order). Only a backstop: the failover decides
    // at `commandTimeoutMs`, with a timer that does not mistake our own event-loop lag for a
    // silent Redis; ioredis's would (a cold start's first request blocks the loop ~300 ms).
    commandTimeout: Math.max(1000, 4 * commandTimeoutMs),
    // Keep trying in the background (an outage ends); never give up for good.
    retryStrategy: (times) => Math.min(100 * times, 2000),
    reconnectOnError: (err) => err.message.startsWith('READONLY'),
  };
}

/** A client for `target`, not yet waited for. */
export async function createRedisClient(target: RedisTarget, commandTimeoutMs: number): Promise<RedisClient> {
  const { Redis, Cluster } = await import('ioredis');
  const options = connectionOptions(commandTimeoutMs);
  if ('clusterNodes' in target) {
    return new Cluster(target.clusterNodes.map(hostPort), {
      enableOfflineQueue: false,
      clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
      redisOptions: options,
    });
  }
  if ('sentinels' in target) {
    return new Redis({
      ...options,
      sentinels: target.sentinels.map(hostPort),
      name: target.masterName,
      sentinelRetryStrategy: (times) => Math.min(100 * times, 2000),
      // Listen to the sentinels for +switch-master and reconnect at once, rather than when the
      // old master first answers READONLY.
      failoverDetector: true,
    });
  }
  return new Redis(target.url, options);
}

export async function connectRedis(target: RedisTarget | string, logger: Logger, commandTimeoutMs: number, readyTimeoutMs = 2000): Promise<RedisClient> {
  const redis = await createRedisClient(typeof target === 'string' ? { url: target } : target, commandTimeoutMs);
  let warned = false;
  redis.on('error', (err: Error) => {
    if (warned) return;
    warned = true;
    logger.warn({ err: err.message }, 'redis unreachable: using memory stores until it is back');
  });
  redis.on('ready', () => {
    if (warned) logger.info('redis reachable again');
    warned = false;
  });
  // Start answering either way; until Redis is ready, the memory stores serve.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyTimeoutMs);
    timer.unref();
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redis;
}
