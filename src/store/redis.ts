// The Redis connection shared by the rate limiter and the cache. Set to fail fast: with
// ioredis's defaults (an offline queue, 20 retries a command) an outage queues commands and hangs
// requests; here a command fails at once when the connection is down, and the callers fall back to
// their memory stores; when Redis holds the connection but does not answer, store/failover.ts
// gives up on the operation at `commandTimeoutMs` (REDIS_TIMEOUT_MS) and falls back the same way.
// ioredis is loaded only when REDIS_URL is set: an instance on its memory stores does not carry
// the client (loading it costs ~14 MB of resident memory).

import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export async function connectRedis(url: string, logger: Logger, commandTimeoutMs: number, readyTimeoutMs = 2000): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
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
  });
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
