// LinkPeek alone under the end-to-end uncached setup (bench/e2e.ts), for finding where its own
// process spends CPU per page: the corpus upstream and LinkPeek (compiled, with the benchmark's
// environment, as bench/lib/contenders.ts starts it) in their own processes, a warm-up, then
// unique-URL load from autocannon (its own process). Prints the CPU time of LinkPeek's process per
// answered page (from /proc/<pid>/stat, as e2e.ts reads it, split into user and system time) and,
// with --prof, V8's CPU profile of the server's whole life (start, warm-up, run): self time
// grouped by where the code lives (src/…, wasm-parser/…, node_modules/<package>, node: internals,
// GC) and the top functions. The profile samples the main thread by the clock: a native frame
// that makes a system call (writev, writeLatin1String, close) also collects the time the thread
// sat preempted in it on this shared machine, so its share overstates its CPU; the system time
// from /proc is the measure of those.
//
//   npx tsx bench/e2e-profile.ts [--runs 3] [--duration 15] [--warmup 3] [--connections 16]
//                                [--prof] [--top 40] [--keep-profile FILE]
//                                [--server dist/bench/bench/lib/linkpeek-server.js]
//
// --server runs another compiled copy of the server (e.g. an older build copied under the repo,
// so it still resolves the root install's packages) instead of compiling the current sources; give
// it twice or more (comma-separated) to alternate builds run by run for a before/after comparison.
// --keep-profile FILE keeps the last run's .cpuprofile (for Chrome DevTools or speedscope).
// Without --prof the server runs without the profiler, whose sampling costs CPU of its own.

import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startUpstream, upstreamStats } from './e2e.js';
import { LINKPEEK_BENCH_ENV } from './lib/contenders.js';
import { REPO_ROOT } from './lib/corpus.js';
import { runLoad } from './lib/run-load.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    prof: { type: 'boolean', default: false },
    top: { type: 'string', default: '40' },
    server: { type: 'string' },
    'keep-profile': { type: 'string' },
  },
});

let servers: string[];
if (args.server) {
  servers = args.server.split(',');
} else {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'bench/tsconfig.servers.json'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  servers = ['dist/bench/bench/lib/linkpeek-server.js'];
}

/** User and system CPU time of a live process so far, in ms (bench/lib/proc.ts cpuMsOf, split). */
function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }; // USER_HZ 100
}

interface Started {
  pid: number;
  origin: string;
  /** SIGTERM, then waits for the exit (the profile is written on the way out). */
  stop(): Promise<void>;
}

function startLinkPeek(script: string, profDir: string | null): Promise<Started> {
  const flags = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const child = spawn(process.execPath, [...flags, path.join(REPO_ROOT, script)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...LINKPEEK_BENCH_ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.once('exit', (code) => reject(new Error(`LinkPeek exited (${code}) before listening: ${seen.slice(-500)}`)));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      seen += text;
      const match = /LISTENING (\d+)/.exec(seen);
      if (!match) return;
      child.removeAllListeners('exit');
      child.stderr!.removeAllListeners('data');
      child.stderr!.resume();
      resolve({
        pid: child.pid!,
        origin: `http://127.0.0.1:${match[1]}`,
        // linkpeek-server.ts answers SIGTERM with process.exit(0), which writes --cpu-prof's file;
        // a process ended by a signal's default action (SIGINT there) would write none.
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A compiled file's path in the repository's terms: dist/<build>/src/x.js → src/x.js. */
function repoPath(url: string): string {
  return path.relative(REPO_ROOT, url.replace(/^file:\/\//, '')).replace(/^dist\/[^/]+\//, '');
}

/** Where a frame's code lives: src/api, wasm-parser/x.js, node_modules/<pkg>, node:internal/…, (garbage collector)… */
function groupOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : `(native) ${name.length > 80 ? `${name.slice(0, 80)}…` : name}`;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/').slice(0, 2).join('/');
  if (url.startsWith('wasm:')) return 'wasm';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return 'node_modules/' + (parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  return repoPath(url).split('/').slice(0, 2).join('/');
}

function shortFile(url: string): string {
  if (url.startsWith('node:') || url.startsWith('wasm:')) return url;
  const nm = url.lastIndexOf('/node_modules/');
  return nm >= 0 ? url.slice(nm + 1) : repoPath(url);
}

/** Self time per group and per function, as shares of the samples that were not idle. */
function summarise(profile: Profile, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + us);
  }
  const groups = new Map<string, number>();
  const fns = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const group = groupOf(url, functionName);
    groups.set(group, (groups.get(group) ?? 0) + us);
    const key = `${functionName || '(anonymous)'}  ${url ? `${shortFile(url)}:${lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const out = [`busy (non-idle) samples: ${(busy / 1000).toFixed(0)} ms`, '', 'self time by where the code lives:'];
  for (const [g, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 40)) out.push(`  ${pct(us)}  ${g}`);
  out.push('', `top ${top} functions by self time:`);
  for (const [f, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`  ${pct(us)}  ${f}`);
  return out;
}

const runs = Number(args.runs);
const connections = Number(args.connections);
const upstream = await startUpstream();
const results = new Map<string, number[]>(servers.map((s) => [s, []]));
try {
  for (let run = 1; run <= runs; run++) {
    for (const script of servers) {
      const profDir = args.prof ? mkdtempSync(path.join(os.tmpdir(), 'linkpeek-prof-')) : null;
      const server = await startLinkPeek(script, profDir);
      const base = { origin: server.origin, prefix: '/v1/metadata?url=', upstream: upstream.origin, mode: 'unique' as const };
      let line: string;
      try {
        if (Number(args.warmup) > 0) await runLoad({ ...base, run: `pw${run}`, connections: 8, durationSeconds: Number(args.warmup) });
        await upstreamStats(upstream);
        const before = cpuTimes(server.pid);
        const load = await runLoad({ ...base, run: `pr${run}`, connections, durationSeconds: Number(args.duration) });
        const after = cpuTimes(server.pid);
        const pages = Math.max(1, load.total);
        const perPage = (after.user + after.system - before.user - before.system) / pages;
        results.get(script)!.push(perPage);
        line =
          `run ${run} ${script}: ${load.okPerSecond.toFixed(1)} pages/s, p50 ${load.p50} ms, errors ${load.non2xx + load.errors + load.timeouts},` +
          ` CPU ${perPage.toFixed(3)} ms/page (user ${((after.user - before.user) / pages).toFixed(3)}, system ${((after.system - before.system) / pages).toFixed(3)}),` +
          ` load average ${os.loadavg()[0]!.toFixed(2)}`;
      } finally {
        await server.stop();
      }
      console.log(line);
      if (profDir) {
        const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
        if (file) {
          const profile = JSON.parse(readFileSync(path.join(profDir, file), 'utf8')) as Profile;
          console.log(['', '(the whole life of the process: start, warm-up, run)', ...summarise(profile, Number(args.top)), ''].join('\n'));
        } else console.log('  (no profile written)');
        if (file && args['keep-profile']) copyFileSync(path.join(profDir, file), args['keep-profile']);
        rmSync(profDir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await upstream.stop();
}
console.log('\nCPU ms/page, median (min–max):');
for (const [script, values] of results) {
  console.log(`  ${script}: ${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}) over ${values.length} runs`);
}
