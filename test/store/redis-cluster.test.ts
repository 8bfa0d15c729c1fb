import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startService, type Service } from '../helpers/service.js';
import { startCluster, type RedisCluster } from '../helpers/redis-topologies.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';

// Two instances of the real app on a Redis Cluster of three masters (Debian's redis-server on
// free loopback ports): one rate limit and one fetch per page across both, with no CROSSSLOT,
// no MOVED and no store-down line in their logs.

const BAD = '/v1/metadata?url=ftp://x'; // answered 400 at once, and counted
const html = { 'content-type': 'text/html' };

interface Ctx {
  cluster: RedisCluster;
  up: Upstream;
  a: Service;
  b: Service;
  logs: string[];
}

const cluster = suite<Ctx>('two instances on a 3-master Redis Cluster');

cluster.before(async (ctx) => {
  ctx.cluster = await startCluster();
  ctx.up = await startUpstream({
    routes: {
      // slow enough that both instances ask while the first fetch is still running
      '/page': async (req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        void respond(200, '<title>On a cluster</title>', html)(req, res);
      },
    },
  });
  ctx.logs = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void ctx.logs.push(line) });
  // What is tested here is how commands land on a cluster, not Redis's deadline (ops/redis-stall
  // tests that): on a CI machine loaded past its cores, one command of the three local masters
  // took longer than the default 250 ms and was logged as a store failure.
  const env = { REDIS_CLUSTER_NODES: ctx.cluster.nodes.join(','), REDIS_TIMEOUT_MS: '2000', RATE_LIMIT_MAX: '20', PROBE_IMAGES: 'false' };
  ctx.a = await startService(env, { logger });
  ctx.b = await startService(env, { logger });
});

cluster.after(async (ctx) => {
  await ctx.a?.close();
  await ctx.b?.close();
  await ctx.up?.close();
  await ctx.cluster?.stop();
});

cluster('a client spread over both instances gets exactly 20 answers, then 429', async ({ a, b }) => {
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push((await (i % 2 ? b : a).request(BAD, { localAddress: '127.0.0.21' })).status);
  assert.equal(statuses, [...Array(20).fill(400), ...Array(10).fill(429)]);
});

cluster('clients of every bucket are counted, spread over the masters', async ({ a, cluster }) => {
  for (let i = 0; i < 40; i++) assert.is((await a.request(BAD, { localAddress: `127.0.${i + 1}.22` })).status, 400);
  const perNode = await Promise.all(
    cluster.ports.map(async (port) => {
      const node = new Redis({ port, host: '127.0.0.1' });
      try {
        return (await node.keys('lp:rl:*:log:*')).length;
      } finally {
        node.disconnect();
      }
    }),
  );
  assert.ok(perNode.filter((n) => n > 0).length >= 2, `the limiter's keys sit on several masters: ${perNode.join(', ')}`);
});

cluster('a page asked on both instances at once is fetched once', async ({ a, b, up }) => {
  const url = `/v1/metadata?url=${encodeURIComponent(up.url('/page').href)}`;
  const [ra, rb] = await Promise.all([a.request(url, { localAddress: '127.0.0.23' }), b.request(url, { localAddress: '127.0.0.24' })]);
  assert.equal([ra.status, rb.status], [200, 200]);
  assert.is(ra.json.title, 'On a cluster');
  assert.equal(rb.json, ra.json);
  assert.is(up.hits('/page'), 1);
});

cluster('no CROSSSLOT, MOVED or store-down line in either log; /healthz says redis ok', async ({ a, b, logs }) => {
  const troubled = logs.filter((line) => /CROSSSLOT|MOVED|redis failed|unreachable|lost its data/i.test(line));
  assert.equal(troubled, []);
  for (const svc of [a, b]) assert.is((await svc.request('/healthz')).json.redis, 'ok');
});

cluster.run();
