import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { checkedRequest } from '../helpers/service.js';
import { startProcess, type ServiceProcess } from '../helpers/process.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { testRedisUrl } from '../helpers/redis.js';
import { gate, until } from '../helpers/until.js';
import { cacheOutcomes } from '../helpers/cache-outcomes.js';

// Instances as production runs them (src/main.ts in its own process), sharing Redis.

const html = { 'content-type': 'text/html' };
const q = (up: Upstream, path: string) => `/v1/metadata?${new URLSearchParams({ url: up.url(path).href })}`;

const shared = suite('two instances on one Redis');
shared('share one cache (one upstream fetch, even for concurrent requests) and one rate-limit budget', async () => {
  const REDIS_URL = testRedisUrl(10);
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  // Held until all ten requests wait on this one fetch: four join it in each process, and the
  // first of the other process waits on this one's claim (sent to Redis before it counts its miss).
  const held = gate();
  const up = await startUpstream({
    routes: {
      '/slow': async (_req, res) => {
        await held.promise;
        res.writeHead(200, html);
        res.end('<title>Shared</title>');
      },
    },
  });
  const env = { REDIS_URL, RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '5000', PROBE_IMAGES: 'false' };
  const [a, b] = await Promise.all([startProcess(env), startProcess(env)]);
  try {
    // concurrent requests on both instances: one upstream fetch between them
    const pending = Promise.all(
      Array.from({ length: 10 }, (_, i) => checkedRequest(`${(i % 2 ? a : b).baseUrl}${q(up, '/slow')}`, { localAddress: '127.0.0.31' })),
    );
    const waiting = async (baseUrl: string) => (await cacheOutcomes(baseUrl, 'miss')) === 1 && (await cacheOutcomes(baseUrl, 'shared')) === 4;
    await until(async () => up.hits('/slow') === 1 && (await waiting(a.baseUrl)) && (await waiting(b.baseUrl)), 'all ten requests to wait on one fetch');
    held.open();
    const both = await pending;
    assert.ok(both.every((r) => r.status === 200 && r.json.title === 'Shared'));
    assert.is(up.hits('/slow'), 1);
    // 10 used; 10 more pass across both, then 429 on either
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await checkedRequest(`${(i % 2 ? a : b).baseUrl}${q(up, '/slow')}`, { localAddress: '127.0.0.31' });
      statuses.push(res.status);
    }
    assert.equal(statuses, [...Array(10).fill(200), 429, 429]);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await up.close();
  }
});
shared.run();

const outage = suite('Redis failing while running');
outage('instances keep answering from memory, /healthz says degraded, and they return to Redis', async () => {
  const port = 6400 + Math.floor(Math.random() * 500);
  const startRedis = (): ChildProcess =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  // A fresh client per attempt: one whose connect() failed stays "reconnecting" and refuses to connect() again.
  const waitRedis = () =>
    until(async () => {
      const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => {}); // refusals until the server listens are expected (connect() rejects too)
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    }, 'the Redis server to answer');
  let server = startRedis();
  await waitRedis();
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>Up</title>', html) } });
  const env = { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' };
  const [a, b] = await Promise.all([startProcess(env), startProcess(env)]);
  const health = async (svc: ServiceProcess) => (await checkedRequest(`${svc.baseUrl}/healthz`)).json;
  try {
    assert.equal([(await health(a)).redis, (await health(b)).redis], ['ok', 'ok']);

    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    for (const svc of [a, b]) await until(async () => (await health(svc)).redis === 'down', 'the instance to notice Redis is gone');
    for (const svc of [a, b]) {
      const res = await checkedRequest(`${svc.baseUrl}${q(up, '/p')}?during-outage`);
      assert.is(res.status, 200);
      assert.is(res.json.title, 'Up');
      const h = await health(svc);
      assert.equal([h.status, h.redis], ['degraded', 'down']);
    }

    server = startRedis();
    await waitRedis();
    // ioredis reconnects on its own (retry every ≤ 2 s)
    for (const svc of [a, b]) await until(async () => (await health(svc)).redis === 'ok', 'the instance to find Redis again');
    // Nothing but the machine's own event-loop delay (a loaded machine's) still degrades either.
    const rules = async (svc: ServiceProcess) => ((await health(svc)).degraded_by as string[]).filter((rule) => rule !== 'event_loop');
    assert.equal([await rules(a), await rules(b)], [[], []]);
    // back on the shared cache: what a stores, b finds
    const before = up.hits('/p');
    await checkedRequest(`${a.baseUrl}${q(up, '/p')}&after=1`);
    await checkedRequest(`${b.baseUrl}${q(up, '/p')}&after=1`);
    assert.is(up.hits('/p') - before, 1);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    server.kill('SIGKILL');
    await up.close();
  }
});
outage.run();
