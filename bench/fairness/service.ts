// LinkPeek as `npm start` runs it (dist/server/src/main.js of a checkout, compiled), in its own
// process, at its default settings except what the fairness world needs.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { get } from './client.js';

export interface Service {
  origin: string;
  pid: number;
  /** The service's log line of each of these requests (by X-Request-Id) that it logged. */
  logOf(requestIds: string[]): Map<string, LoggedRequest>;
  stop(): Promise<void>;
}

/** What the service's log line of a request says. */
export interface LoggedRequest {
  /** Milliseconds from the request's arrival in the handler to its log line. */
  ms: number;
  reason?: string;
}

/** The build a checkout's `npm run build:server` makes. */
export const serviceEntry = (checkout: string) => path.join(checkout, 'dist', 'server', 'src', 'main.js');

const START_WITHIN_MS = 30_000;

/** Settings on top of the defaults for every service started (bench:fairness --set NAME=VALUE, to try one). */
export const extraSettings: Record<string, string> = {};

/**
 * Starts the service of `checkout` with only these settings, none inherited from this shell:
 * the world's nameserver and CA, private networks allowed (the world is on loopback), and
 * TRUST_PROXY (the IPv6 attackers are named in X-Forwarded-For, attacks.ts). Everything else,
 * the rate limit and the fetch shares included, is at its default. No Redis (none by default).
 */
export async function startService(checkout: string, world: { dns: string; caFile: string }, settings: Record<string, string> = {}): Promise<Service> {
  const entry = serviceEntry(checkout);
  if (!existsSync(entry)) throw new Error(`no build at ${entry}: run \`npm run build:server\` in ${checkout}`);
  const port = await freePort();
  // Its log goes to a file, not through this process (which runs the bystander): read after the run.
  const logFile = path.join(os.tmpdir(), `linkpeek-fairness-${process.pid}-${port}.log`);
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [entry], {
    cwd: checkout,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DNS_SERVERS: world.dns,
      UPSTREAM_CA_FILE: world.caFile,
      ALLOW_PRIVATE_NETWORKS: 'true',
      TRUST_PROXY: 'true',
      ...extraSettings,
      ...settings,
    },
    stdio: ['ignore', log, 'pipe'],
  });
  closeSync(log);
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
  const origin = `http://127.0.0.1:${port}`;
  const logOf = (requestIds: string[]) => {
    const wanted = new Set(requestIds);
    const logged = new Map<string, LoggedRequest>();
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.includes('"reqId"')) continue;
      try {
        const { reqId, reason, ms } = JSON.parse(line) as { reqId?: string; reason?: string; ms?: number };
        if (reqId !== undefined && typeof ms === 'number' && wanted.has(reqId)) logged.set(reqId, { ms, ...(reason === undefined ? {} : { reason }) });
      } catch {
        // a line cut by the kill
      }
    }
    return logged;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(logFile, { force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGKILL'); // no graceful drain: the attackers' requests are not what is measured
    });
  const deadline = performance.now() + START_WITHIN_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`LinkPeek exited (${child.exitCode}): ${stderr}`);
    if ((await get(`${origin}/healthz`, { address: '127.0.0.1' }, 1000)).status > 0) return { origin, pid: child.pid!, logOf, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`LinkPeek did not answer /healthz within ${START_WITHIN_MS} ms: ${stderr}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
