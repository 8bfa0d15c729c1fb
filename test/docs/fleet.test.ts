import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkedRequest, startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { freePort, onPath, startRedis } from '../provision.mjs';
import { REPO_ROOT } from './code-blocks.js';

// The fleet example (deploy/fleet/) as CI can run it without a container runtime: its Redis
// command line on a redis-server of the test's own, three instances of the real app with the
// instances' settings from its compose.yaml, and Debian's haproxy with its haproxy.cfg in front.
// A client through the balancer gets exactly the published limit, and what it writes in its own
// X-Forwarded-For never makes it another client.

const compose = parse(readFileSync(`${REPO_ROOT}deploy/fleet/compose.yaml`, 'utf8'));
const COUNTED = '/v1/metadata?url=ftp://x'; // answered 400 at once, and counted

test('compose.yaml: three instances with TRUST_PROXY behind the balancer, the only published port; Redis bounded with volatile-lru', () => {
  const names = Object.keys(compose.services).sort();
  assert.equal(names, ['balancer', 'linkpeek-1', 'linkpeek-2', 'linkpeek-3', 'redis']);
  for (const name of ['linkpeek-1', 'linkpeek-2', 'linkpeek-3']) {
    assert.equal(compose.services[name].environment, { REDIS_URL: 'redis://redis:6379', TRUST_PROXY: 'true' });
    assert.is(compose.services[name].ports, undefined, `${name} publishes no port: only the balancer reaches it`);
  }
  assert.equal(compose.services.balancer.environment, { LB_BIND: ':8080', LP1: 'linkpeek-1:3000', LP2: 'linkpeek-2:3000', LP3: 'linkpeek-3:3000' });
  assert.equal(compose.services.redis.command.slice(5), ['--maxmemory', '256mb', '--maxmemory-policy', 'volatile-lru']);
});

test('haproxy.cfg in front of three instances: exactly 20 of 30 through the balancer, a forged X-Forwarded-For changes nothing', async () => {
  const redis = await startRedis(undefined, compose.services.redis.command.slice(1));
  const { REDIS_URL: _inCompose, ...settings } = compose.services['linkpeek-1'].environment as Record<string, string>;
  const instances: Service[] = [];
  const port = await freePort();
  let balancer: ReturnType<typeof spawn> | undefined;
  try {
    for (let i = 0; i < 3; i++) instances.push(await startService({ ...settings, REDIS_URL: redis.url, RATE_LIMIT_MAX: '20' }));
    balancer = spawn(onPath('haproxy') ?? 'haproxy', ['-f', `${REPO_ROOT}deploy/fleet/haproxy.cfg`, '-db'], {
      env: {
        ...process.env,
        LB_BIND: `127.0.0.1:${port}`,
        ...Object.fromEntries(instances.map((svc, i) => [`LP${i + 1}`, svc.baseUrl.replace('http://', '')])),
      },
      stdio: 'ignore',
    });
    // Each instance counts in Redis only once it has found it there: one that has not yet (a
    // heartbeat late on a loaded machine) decides alone, as a fleet of one, and grants the whole limit.
    for (const svc of instances) await until(async () => (await svc.request('/healthz')).json.redis === 'ok', 'each instance to find Redis');
    const base = `http://127.0.0.1:${port}`;
    await until(async () => (await checkedRequest(`${base}/healthz`).catch(() => ({ status: 0 }))).status === 200, 'the balancer answering');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      // A different forged address each time: were it taken for the client, each would be a new budget.
      const res = await checkedRequest(base + COUNTED, { localAddress: '127.0.0.51', headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      statuses.push(res.status);
    }
    assert.equal(statuses, [...Array(20).fill(400), ...Array(10).fill(429)]);
    const other = await checkedRequest(base + COUNTED, { localAddress: '127.0.0.52' });
    assert.is(other.status, 400, 'another address is another client');
  } finally {
    if (balancer && balancer.exitCode === null) {
      const exited = new Promise((resolve) => balancer!.once('exit', resolve));
      balancer.kill('SIGTERM');
      await exited;
    }
    for (const svc of instances) await svc.close();
    await redis.stop();
  }
});

test.run();
