// Runs the real entry point as its own process, as production does, for the tests that need
// several instances or signals. It listens on 127.0.0.1, port 0, and says which port in its
// "LinkPeek listening" log line. Which entry point: TEST_SERVICE_ENTRY, which test/run.mjs sets to
// the build `npm start` runs when dist/ is current (scripts/build-stamp.mjs), to the sources
// otherwise; the sources when unset. A start from the sources costs about 3.3 s of CPU here, from
// the build 0.8 s.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LOCAL_DNS_SERVERS } from './local-dns.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Every log line so far, parsed. */
  logs: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * What to run: the TypeScript source through tsx, the build `npm start` runs (dist/server/), or
 * `npm start` itself (then `child` is the npm process, as an operator or a container starts it),
 * or the CLI's `linkpeek serve` (the package's bin, built there too).
 */
export type Entry = 'source' | 'compiled' | 'npm start' | 'linkpeek serve';
export const COMPILED_MAIN = 'dist/server/src/main.js';
const ENTRY_ARGS: Record<Exclude<Entry, 'npm start'>, string[]> = {
  source: ['--import', 'tsx', 'src/main.ts'],
  compiled: [COMPILED_MAIN],
  'linkpeek serve': ['dist/server/src/cli.js', 'serve'],
};

/** The entry point the tests' service processes run unless they name one (the top of this file). */
export const SERVICE_ENTRY: 'source' | 'compiled' = process.env.TEST_SERVICE_ENTRY === 'compiled' ? 'compiled' : 'source';

/** Node's arguments that run the service from SERVICE_ENTRY (for a test that spawns it itself). */
export const SERVICE_ARGS: readonly string[] = ENTRY_ARGS[SERVICE_ENTRY];

export async function startProcess(env: Record<string, string>, entry: Entry = SERVICE_ENTRY): Promise<ServiceProcess> {
  const [command, args] = entry === 'npm start' ? [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['start']] : [process.execPath, ENTRY_ARGS[entry]];
  const child = spawn(command, args, {
    cwd: root,
    // No drain unless a test asks for one: no load balancer watches these processes' /healthz.
    // No per-client caps: the tests speak from 127.0.0.1 for many clients; /metrics on the one
    // port the tests know, and no refusals past capacity on a loaded test machine (as service.ts TEST_ENV).
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      ALLOW_PRIVATE_NETWORKS: 'true',
      DNS_SERVERS: LOCAL_DNS_SERVERS,
      SHUTDOWN_DRAIN_MS: '0',
      MAX_CONNECTIONS_PER_CLIENT: '0',
      MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '0',
      CLIENT_REQUESTS_PER_SECOND: '0',
      METRICS_PUBLIC: 'true',
      SHED_TARGET_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry.msg === 'LinkPeek listening') {
            clearTimeout(timer);
            resolve(entry.port as number);
          }
        } catch {
          /* not a log line */
        }
      }
    });
    void exited.then((code) => reject(new Error(`service exited (${code}) before listening: ${stderr}`)));
    // Cleared once it listens: left set, it killed a service that was still in use 20 s after it
    // started. 60 s: a start-up takes 2-8 s at load 20 (bench/results/startup.md) and passed 20 s
    // with both cores loaded by busy loops.
    const timer = setTimeout(() => {
      // Not left running to hold the test file open: npm passes SIGTERM on to the service.
      child.kill(entry === 'npm start' ? 'SIGTERM' : 'SIGKILL');
      reject(new Error(`service did not listen within 60 s: ${stderr}`));
    }, 60_000);
    timer.unref();
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    logs,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
