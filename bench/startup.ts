// Start-up of the compiled service (dist/server/src/main.js), as an operator or a container runs
// it: each start is a new process, with REDIS_URL at a redis-server of the benchmark's own on
// loopback and DNS_SERVERS at a loopback nameserver. Per start:
//   listening   spawn to the "LinkPeek listening" log line
//   healthz     spawn to the first 200 of GET /healthz (asked once the line is seen, then every 5 ms)
//   cpu         CPU time (user + system, every thread) the process had used by that 200, from /proc,
//               and once it has gone idle (the scan threads it starts beside may still be loading)
// and, as a floor, the same for a bare Node HTTP server. The machine may be shared: the load
// average is printed beside each batch, and CPU time is the figure a busy machine disturbs least.
//
//   npm run bench:startup                       10 starts
//   npm run bench:startup -- --runs 20 --cpu-prof /tmp/prof
//        --cpu-prof DIR: each start writes a V8 CPU profile there (node --cpu-prof), and the
//        self time of the starts is summed by where the code lives (a package, LinkPeek, Node).
//        --main FILE: another build's entry point (default dist/server/src/main.js), to compare.

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startWorldDns } from '../test/world/dns-server.js';
import { REPO_ROOT } from './lib/corpus.js';
import { cpuMsOf } from './lib/proc.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    'no-redis': { type: 'boolean', default: false },
    main: { type: 'string', default: path.join('dist', 'server', 'src', 'main.js') },
  },
});
const RUNS = Number(args.runs);
const MAIN = path.resolve(REPO_ROOT, args.main);
const BARE = `require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('LISTENING ' + this.address().port); });`;

interface Start {
  listeningMs: number;
  healthzMs: number;
  cpuMs: number;
  /** CPU time once the process has gone idle (its scan threads started too). */
  settledCpuMs: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${seen.slice(-300)}`)));
  });
  child.stdout!.resume();
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

/** One start of `node ...argv`: waits for the line on which `portOf` finds the port, then for a 200 at `probe`. */
async function measure(argv: string[], env: Record<string, string>, portOf: (line: string) => number | null, probe: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`exited (${code}) before answering: ${stderr.slice(-500)}`))));
  try {
    const port = await Promise.race([
      exited,
      new Promise<number>((resolve) => {
        let buffered = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          let nl;
          while ((nl = buffered.indexOf('\n')) !== -1) {
            const port = portOf(buffered.slice(0, nl));
            buffered = buffered.slice(nl + 1);
            if (port !== null) resolve(port);
          }
        });
      }),
    ]);
    const listeningMs = performance.now() - started;
    for (;;) {
      const status = await Promise.race([
        exited,
        fetch(`http://127.0.0.1:${port}${probe}`).then(
          async (res) => (await res.arrayBuffer(), res.status),
          () => 0,
        ),
      ]);
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const healthzMs = performance.now() - started;
    const cpuMs = cpuMsOf(child.pid!);
    return { listeningMs, healthzMs, cpuMs, settledCpuMs: await settledCpu(child.pid!) };
  } finally {
    child.removeAllListeners('exit');
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
}

/** The process's CPU time once it used none for 300 ms (at most 10 s after it is asked). */
async function settledCpu(pid: number): Promise<number> {
  let last = cpuMsOf(pid);
  for (let quiet = 0, tries = 0; quiet < 3 && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpuMsOf(pid);
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  return last;
}

/** The port of the "LinkPeek listening" log line (JSON), or null for any other line. */
function listeningPort(line: string): number | null {
  if (!line.includes('LinkPeek listening')) return null;
  const entry = JSON.parse(line) as { msg?: string; port?: number };
  return entry.msg === 'LinkPeek listening' && typeof entry.port === 'number' ? entry.port : null;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const range = (xs: number[]) => `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`;
const load = () => loadavg()[0]!.toFixed(1);

function report(name: string, starts: Start[], loadBefore: string): void {
  console.log(
    `| ${name} | ${starts.length} | ${loadBefore}–${load()} | ${range(starts.map((s) => s.listeningMs))} | ${range(starts.map((s) => s.healthzMs))} | ${range(starts.map((s) => s.cpuMs))} | ${range(starts.map((s) => s.settledCpuMs))} |`,
  );
}

/** Self time of every profile in `dir`, per start, by where the code lives. */
function summarizeProfiles(dir: string): void {
  interface Node {
    id: number;
    callFrame: { url: string; functionName: string };
  }
  interface Profile {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const totals = new Map<string, number>();
  for (const file of files) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const where = placeOf(byId.get(id)!.callFrame);
      totals.set(where, (totals.get(where) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000 / files.length);
    });
  }
  const rows = [...totals].sort((a, b) => b[1] - a[1]);
  const all = rows.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`\nCPU profiles (${files.length}, main thread only): self time per start, ${Math.round(all)} ms in all`);
  for (const [where, ms] of rows.slice(0, 20)) console.log(`  ${where.padEnd(40)} ${ms.toFixed(0).padStart(5)} ms`);
}

function placeOf({ url, functionName }: { url: string; functionName: string }): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  if (url.includes('/dist/server/')) return 'LinkPeek';
  return url;
}

const dns = await startWorldDns({ unref: true });
const redis = args['no-redis'] ? null : await startRedis();
const profDir = args['cpu-prof'] ? path.resolve(args['cpu-prof']) : null;
if (profDir) mkdirSync(profDir, { recursive: true });
const env: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
  DNS_SERVERS: dns.server,
  ...(redis ? { REDIS_URL: redis.url } : {}),
};
try {
  console.log(
    `Start-up, ${RUNS} starts each, Node ${process.version}, ${redis ? 'REDIS_URL at a redis-server on loopback' : 'no Redis'}; ms: median (min–max)`,
  );
  console.log('| what | starts | load | spawn → listening | spawn → /healthz 200 | CPU ms by then | CPU ms once idle |');
  console.log('|---|---|---|---|---|---|---|');
  let loadBefore = load();
  const bare: Start[] = [];
  for (let i = 0; i < RUNS; i++) bare.push(await measure(['-e', BARE], {}, (line) => (line.startsWith('LISTENING ') ? Number(line.slice(10)) : null), '/'));
  report('bare Node HTTP server', bare, loadBefore);
  loadBefore = load();
  const service: Start[] = [];
  const profArgs = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  for (let i = 0; i < RUNS; i++) service.push(await measure([...profArgs, MAIN], env, listeningPort, '/healthz'));
  report(`LinkPeek (${path.relative(REPO_ROOT, MAIN)})`, service, loadBefore);
  if (profDir) summarizeProfiles(profDir);
} finally {
  redis?.stop();
  await dns.close();
}
