// Redis in its production shapes, started for one test from Debian's redis-server on free
// loopback ports (never 6379) and stopped at its end: a Cluster of three masters, and a master
// with a replica watched by three sentinels (`redis-server <conf> --sentinel`, the same binary).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, onPath, startRedis } from '../provision.mjs';
import { until } from './until.js';

type Server = Awaited<ReturnType<typeof startRedis>>;

export interface RedisCluster {
  /** host:port of every master, as REDIS_CLUSTER_NODES takes them. */
  nodes: string[];
  ports: number[];
  stop(): Promise<void>;
}

/** Three masters with `--cluster-enabled yes`, joined by `redis-cli --cluster create`. */
export async function startCluster(): Promise<RedisCluster> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      servers.push(await startRedis(undefined, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000']));
    }
    const nodes = servers.map((s) => `127.0.0.1:${s.port}`);
    const made = spawnSync(onPath('redis-cli') ?? 'redis-cli', ['--cluster', 'create', ...nodes, '--cluster-yes'], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`redis-cli --cluster create failed: ${made.stdout}${made.stderr}`);
    for (const server of servers) {
      const client = new Redis(server.url);
      try {
        await until(async () => /cluster_state:ok/.test(await client.cluster('INFO')), 'cluster_state:ok', 10_000);
      } finally {
        client.disconnect();
      }
    }
    return { nodes, ports: servers.map((s) => s.port), stop: () => stopAll(servers) };
  } catch (err) {
    await stopAll(servers);
    throw err;
  }
}

export interface RedisSentinelSet {
  /** host:port of each sentinel, as REDIS_SENTINELS takes them. */
  sentinels: string[];
  masterName: string;
  master: Server;
  replica: Server;
  /** Asks a sentinel to fail the master over; resolves once the replica is master. */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

/** One master, one replica of it, three sentinels watching them (quorum 2). */
export async function startSentinels(masterName = 'linkpeek'): Promise<RedisSentinelSet> {
  const servers: Server[] = [];
  const sentinels: { child: ReturnType<typeof spawn>; port: number }[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-test-sentinel-'));
  const stop = async () => {
    for (const s of sentinels) s.child.kill('SIGTERM');
    await Promise.all(sentinels.map((s) => new Promise((resolve) => (s.child.exitCode === null ? s.child.once('exit', resolve) : resolve(null)))));
    await stopAll(servers);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const master = await startRedis();
    servers.push(master);
    const replica = await startRedis(undefined, ['--replicaof', '127.0.0.1', String(master.port)]);
    servers.push(replica);
    const replicaClient = new Redis(replica.url);
    try {
      await until(async () => /master_link_status:up/.test(await replicaClient.info('replication')), 'the replica in sync', 10_000);
    } finally {
      replicaClient.disconnect();
    }
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = path.join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      const child = spawn(onPath('redis-server') ?? 'redis-server', [conf, '--sentinel', '--loglevel', 'warning'], { stdio: 'ignore' });
      // An interrupted test takes its sentinels with it, as startRedis does its servers.
      const kill = () => child.kill('SIGKILL');
      process.once('exit', kill);
      child.once('exit', () => process.off('exit', kill));
      sentinels.push({ child, port });
    }
    for (const { port } of sentinels) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 100 });
      try {
        await until(
          async () => {
            if (client.status === 'wait') await client.connect().catch(() => {});
            const seen = (await client.call('SENTINEL', 'REPLICAS', masterName).catch(() => [])) as unknown[];
            const others = (await client.call('SENTINEL', 'SENTINELS', masterName).catch(() => [])) as unknown[];
            return seen.length === 1 && others.length === 2;
          },
          'every sentinel sees the replica and the two other sentinels',
          20_000,
        );
      } finally {
        client.disconnect();
      }
    }
    return {
      sentinels: sentinels.map((s) => `127.0.0.1:${s.port}`),
      masterName,
      master,
      replica,
      async failover() {
        const client = new Redis({ port: sentinels[0]!.port, host: '127.0.0.1' });
        try {
          await client.call('SENTINEL', 'FAILOVER', masterName);
          await until(async () => {
            const [, port] = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as [string, string];
            return Number(port) === replica.port;
          }, 'the replica promoted');
        } finally {
          client.disconnect();
        }
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function stopAll(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
}
