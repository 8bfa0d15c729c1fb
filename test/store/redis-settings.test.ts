import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config.js';
import { hostPort, redisTarget } from '../../src/store/redis.js';

// The Redis settings: which shape of Redis they name, and a clear error for each bad one.

const refused = (env: Record<string, string>, setting: string, message: string) =>
  assert.throws(
    () => loadConfig(env),
    (err: unknown) => err instanceof ConfigError && err.setting === setting && err.message.includes(message),
  );

test('no setting: memory stores; REDIS_URL: one Redis', () => {
  assert.is(redisTarget(loadConfig({})), null);
  assert.equal(redisTarget(loadConfig({ REDIS_URL: 'redis://10.0.0.5:6380/2' })), { url: 'redis://10.0.0.5:6380/2' });
});

test('REDIS_CLUSTER_NODES: the seed nodes, names and IPv6 in brackets', () => {
  const config = loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000, 10.0.0.2:7001,[2001:db8::7]:7002' });
  assert.equal(redisTarget(config), { clusterNodes: ['redis-1:7000', '10.0.0.2:7001', '[2001:db8::7]:7002'] });
  assert.equal(hostPort('[2001:db8::7]:7002'), { host: '2001:db8::7', port: 7002 });
});

test('REDIS_SENTINELS with REDIS_SENTINEL_MASTER (mymaster by default)', () => {
  assert.equal(redisTarget(loadConfig({ REDIS_SENTINELS: 's1:26379,s2:26379' })), { sentinels: ['s1:26379', 's2:26379'], masterName: 'mymaster' });
  assert.equal(redisTarget(loadConfig({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_MASTER: 'lp' })), { sentinels: ['s1:26379'], masterName: 'lp' });
});

test('a node without a port, or a port out of range, is refused naming the setting', () => {
  refused({ REDIS_CLUSTER_NODES: 'redis-1' }, 'REDIS_CLUSTER_NODES', '"redis-1" is not host:port');
  refused({ REDIS_SENTINELS: 's1:70000' }, 'REDIS_SENTINELS', '"s1:70000" is not host:port');
});

test('two shapes at once are refused: which one was meant is not guessed', () => {
  refused({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'r:7000' }, 'REDIS_CLUSTER_NODES', 'set only one of REDIS_URL and REDIS_CLUSTER_NODES');
});

test('RATE_LIMIT_OUTAGE: share by default, closed or local, nothing else', () => {
  assert.is(loadConfig({}).rateLimitOutage, 'share');
  assert.is(loadConfig({ RATE_LIMIT_OUTAGE: 'closed' }).rateLimitOutage, 'closed');
  refused({ RATE_LIMIT_OUTAGE: 'open' }, 'RATE_LIMIT_OUTAGE', '"open" is not one of share, closed, local');
});

test.run();
