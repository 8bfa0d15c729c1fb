// npm run bench — every benchmark, one summary table.
//
//   end to end, uncached   bench/e2e.ts     LinkPeek and the four peers behind the same HTTP front
//   cached hits            bench/cached.ts  LinkPeek's stored answers beside bare Koa and bare openapi-backend
//   bytes read             bench/bytes.ts   share of each page pulled before the answer was complete
//   memory                 bench/memory.ts  RSS before and after 10,000 uncached requests (default and small caches)
//   world                  bench/world.ts   LinkPeek at its defaults in a simulated internet (host names, latency, TLS, DNS stalls)
//   and, spawned as they are when present: bench:extract, bench:proxy, bench/probe-cost.ts,
//   bench:stalls (Redis stall and fair fetch slots; it writes bench/results/stalls.md itself)
//
// Every server (the upstream, each contender, each baseline) and the load generator (autocannon)
// run in their own processes. The machine is shared and small, so every figure is the median of
// the runs with min–max beside it, and ratios are taken run by run between contenders measured in
// the same round (then the median of those ratios).
//
// Options: --runs N (3), --duration S (5, seconds per measured e2e run), --cached-duration S (4),
// --memory-requests N (10000), --only e2e,cached,bytes,memory,world,children (all), --out FILE
// (bench/results/latest.md). The corpus is ../shared/corpus; without it only the spawned
// benchmarks run (they skip themselves when they need it).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runBytes, type BytesResult } from './bytes.js';
import { runCached, type CachedRun } from './cached.js';
import { runE2E, type E2ERun } from './e2e.js';
import { corpusPresent, REPO_ROOT } from './lib/corpus.js';
import { PEER_NAMES } from './lib/contenders.js';
import { median, percentile, spread } from './lib/stats.js';
import { runMemory, type MemoryResult } from './memory.js';
import { runWorldBench } from './world.js';
import type { WorldRow } from './world/report.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    'cached-duration': { type: 'string', default: '4' },
    'memory-requests': { type: 'string', default: '10000' },
    only: { type: 'string', default: 'e2e,cached,bytes,memory,world,children' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench/results/latest.md') },
  },
});
const runs = Number(args.runs);
const only = new Set(args.only!.split(','));
const log = (line: string) => console.log(line);
const started = Date.now();

type Row = WorldRow;
const rows: Row[] = [];
const details: string[] = [];

const ratioSpread = (values: number[]) => (values.length ? `${spread(values, 2)}` : 'n/a');
const verdict = (ok: boolean | null) => (ok === null ? '—' : ok ? 'yes' : 'NO');

// ---------------------------------------------------------------------------------------------
let e2e: E2ERun[] = [];
if (corpusPresent() && only.has('e2e')) {
  log(`\n## End to end, uncached (${runs} runs × c=16, 64 × ${args.duration} s each)`);
  e2e = await runE2E({ runs, concurrencies: [16, 64], durationSeconds: Number(args.duration), warmupSeconds: 3, log });
  const contenders = ['LinkPeek', ...PEER_NAMES];
  for (const c of [16, 64]) {
    details.push(`\nEnd to end, uncached, concurrency ${c} (median (min–max) of ${runs} runs)\n`);
    details.push('| contender | pages/s | p50 ms | p99 ms | errors | peak RSS MB | CPU ms/page | upstream bytes handed out, median share |');
    details.push('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const name of contenders) {
      const mine = e2e.filter((r) => r.contender === name && r.concurrency === c);
      if (!mine.length) continue;
      const shares = mine.flatMap((r) => r.served.filter((s) => s.size > 0).map((s) => s.written / s.size));
      details.push(
        `| ${name} | ${spread(
          mine.map((r) => r.load.okPerSecond),
          1,
        )} | ${spread(mine.map((r) => r.load.p50))} | ${spread(mine.map((r) => r.load.p99))}` +
          ` | ${spread(mine.map((r) => r.load.non2xx + r.load.errors + r.load.timeouts))} | ${spread(mine.map((r) => r.peakMb))}` +
          ` | ${spread(
            mine.map((r) => r.cpuMsPerPage),
            2,
          )} | ${(100 * median(shares)).toFixed(0)}% |`,
      );
    }
    // Ratios run by run: LinkPeek and each peer measured in the same round.
    const ours = (run: number) => e2e.find((r) => r.contender === 'LinkPeek' && r.concurrency === c && r.run === run);
    for (const peer of PEER_NAMES) {
      const pairs = e2e
        .filter((r) => r.contender === peer && r.concurrency === c)
        .map((theirs) => ({ theirs, mine: ours(theirs.run) }))
        .filter((p): p is { theirs: E2ERun; mine: E2ERun } => !!p.mine);
      if (!pairs.length) continue;
      const speed = pairs.map((p) => p.mine.load.okPerSecond / Math.max(p.theirs.load.okPerSecond, 1e-9));
      const main = peer === 'unfurl.js';
      rows.push({
        benchmark: `e2e uncached c=${c}`,
        metric: 'pages/s',
        ours: spread(
          pairs.map((p) => p.mine.load.okPerSecond),
          0,
        ),
        against: `${peer} ${spread(
          pairs.map((p) => p.theirs.load.okPerSecond),
          0,
        )}`,
        ratio: ratioSpread(speed),
        target: main ? '≥ 2' : '',
        met: main ? verdict(median(speed) >= 2) : '—',
      });
      if (!main) continue;
      const p99 = pairs.map((p) => p.mine.load.p99 / Math.max(p.theirs.load.p99, 1));
      const rss = pairs.map((p) => p.mine.peakMb / p.theirs.peakMb);
      rows.push({
        benchmark: `e2e uncached c=${c}`,
        metric: 'p99 ms',
        ours: spread(pairs.map((p) => p.mine.load.p99)),
        against: `${peer} ${spread(pairs.map((p) => p.theirs.load.p99))}`,
        ratio: ratioSpread(p99),
        target: '< 1',
        met: verdict(median(p99) < 1),
      });
      const cpu = pairs.map((p) => p.mine.cpuMsPerPage / p.theirs.cpuMsPerPage);
      rows.push({
        benchmark: `e2e uncached c=${c}`,
        metric: 'CPU ms per page (steadier than pages/s)',
        ours: spread(
          pairs.map((p) => p.mine.cpuMsPerPage),
          2,
        ),
        against: `${peer} ${spread(
          pairs.map((p) => p.theirs.cpuMsPerPage),
          2,
        )}`,
        ratio: ratioSpread(cpu),
        target: '',
        met: '—',
      });
      rows.push({
        benchmark: `e2e uncached c=${c}`,
        metric: 'peak RSS MB',
        ours: spread(pairs.map((p) => p.mine.peakMb)),
        against: `${peer} ${spread(pairs.map((p) => p.theirs.peakMb))}`,
        ratio: ratioSpread(rss),
        target: '< 1',
        met: verdict(median(rss) < 1),
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
let cached: CachedRun[] = [];
if (corpusPresent() && only.has('cached')) {
  log(`\n## Cached hits (${runs} runs × ${args['cached-duration']} s, c=64)`);
  cached = await runCached({ runs, durationSeconds: Number(args['cached-duration']), connections: 64, log });
  details.push(`\nCached hits, concurrency 64 (median (min–max) of ${runs} runs)\n`);
  details.push('| contender | req/s | p50 ms | p99 ms | errors | peak RSS MB | CPU µs/req |');
  details.push('| --- | --- | --- | --- | --- | --- | --- |');
  const names = [...new Set(cached.map((r) => r.contender))];
  for (const name of names) {
    const mine = cached.filter((r) => r.contender === name);
    details.push(
      `| ${name} | ${spread(mine.map((r) => r.load.okPerSecond))} | ${spread(mine.map((r) => r.load.p50))} | ${spread(mine.map((r) => r.load.p99))}` +
        ` | ${spread(mine.map((r) => r.load.non2xx + r.load.errors + r.load.timeouts))} | ${spread(mine.map((r) => r.peakMb))}` +
        ` | ${spread(mine.map((r) => r.cpuUsPerRequest))} |`,
    );
  }
  const perRun = (name: string, run: number) => cached.find((r) => r.contender === name && r.run === run)?.load.okPerSecond;
  for (const [ours, limit, target] of [
    ['LinkPeek (cached)', 'bare Koa', 0.7],
    ['LinkPeek (cached)', 'bare openapi-backend', null],
  ] as const) {
    const ratios: number[] = [];
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let run = 1; run <= runs; run++) {
      const a = perRun(ours, run);
      const b = perRun(limit, run);
      if (a === undefined || b === undefined) continue;
      mine.push(a);
      theirs.push(b);
      ratios.push(a / b);
    }
    if (!ratios.length) continue;
    rows.push({
      benchmark: 'cached hits c=64',
      metric: `req/s, ${ours}`,
      ours: spread(mine),
      against: `${limit} ${spread(theirs)}`,
      ratio: ratioSpread(ratios),
      target: target === null ? '' : `≥ ${target}`,
      met: target === null ? '—' : verdict(median(ratios) >= target),
    });
  }
  // The same comparison in CPU per request (bare Koa's µs ÷ ours: the req/s one core could give).
  const cpu = (name: string, run: number) => cached.find((r) => r.contender === name && r.run === run)?.cpuUsPerRequest;
  const cpuRatios: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const a = cpu('LinkPeek (cached)', run);
    const b = cpu('bare Koa', run);
    if (a !== undefined && b !== undefined) cpuRatios.push(b / a);
  }
  if (cpuRatios.length) {
    rows.push({
      benchmark: 'cached hits c=64',
      metric: 'CPU µs/req, bare Koa ÷ LinkPeek (steadier)',
      ours: spread(cached.filter((r) => r.contender === 'LinkPeek (cached)').map((r) => r.cpuUsPerRequest)),
      against: `bare Koa ${spread(cached.filter((r) => r.contender === 'bare Koa').map((r) => r.cpuUsPerRequest))}`,
      ratio: ratioSpread(cpuRatios),
      target: '≥ 0.7',
      met: verdict(median(cpuRatios) >= 0.7),
    });
  }
}

// ---------------------------------------------------------------------------------------------
let bytes: BytesResult | null = null;
if (corpusPresent() && only.has('bytes')) {
  log('\n## Bytes read (in process: safeFetch + scanHead against the local upstream)');
  bytes = await runBytes();
  const pulled = bytes.pulledShare;
  rows.push({
    benchmark: 'bytes read',
    metric: 'share of page pulled, median (p90)',
    ours: `${(100 * median(pulled)).toFixed(1)}% (${(100 * percentile(pulled, 90)).toFixed(1)}%)`,
    against: `scanner needed ${(100 * median(bytes.consumedShare)).toFixed(1)}% (${(100 * percentile(bytes.consumedShare, 90)).toFixed(1)}%)`,
    ratio: '',
    target: 'median < 10%',
    met: verdict(median(pulled) < 0.1),
  });
  details.push(
    `\nBytes read over ${bytes.pages} pages: pulled from safeFetch median ${(100 * median(pulled)).toFixed(1)}%, p90 ${(100 * percentile(pulled, 90)).toFixed(1)}%,` +
      ` overall ${((100 * bytes.pulledTotal) / bytes.pageTotal).toFixed(1)}% of ${(bytes.pageTotal / 1e6).toFixed(1)} MB;` +
      ` consumed by the scanner median ${(100 * median(bytes.consumedShare)).toFixed(1)}%, p90 ${(100 * percentile(bytes.consumedShare, 90)).toFixed(1)}%.`,
  );
  const ours = e2e.filter((r) => r.contender === 'LinkPeek').flatMap((r) => r.served.map((s) => s.written / s.size));
  if (ours.length) {
    details.push(
      `Upstream's count in the e2e runs (bytes handed to the socket before the client closed; an upper bound): LinkPeek median ${(100 * median(ours)).toFixed(1)}%, p90 ${(100 * percentile(ours, 90)).toFixed(1)}% over ${ours.length} requests.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
if (corpusPresent() && only.has('memory')) {
  const total = Number(args['memory-requests']);
  for (const [label, env] of [
    ['default caches', {}],
    ['CACHE_MAX_ENTRIES=500', { CACHE_MAX_ENTRIES: '500' }],
  ] as const) {
    log(`\n## Memory, ${label} (${total} uncached requests at c=64 after a warm-up of 1,000)`);
    const memory: MemoryResult = await runMemory({ batches: 4, perBatch: Math.ceil(total / 4), env, log });
    rows.push({
      benchmark: `memory, ${label}`,
      metric: `RSS MB after warm-up → after ${memory.requests.join(' → ')} more requests`,
      ours: `${memory.startMb.toFixed(0)} → ${memory.afterMb.map((m) => m.toFixed(0)).join(' → ')}`,
      against: `peak ${memory.peakMb.toFixed(0)}`,
      ratio: (memory.afterMb.at(-1)! / memory.startMb).toFixed(2),
      target: 'no growth beyond the bounded caches',
      met: '—',
    });
  }
  const c64 = e2e.filter((r) => r.contender === 'LinkPeek' && r.concurrency === 64).map((r) => r.peakMb);
  if (c64.length) {
    rows.push({ benchmark: 'memory', metric: 'peak RSS MB during the e2e c=64 runs', ours: spread(c64), against: '', ratio: '', target: '', met: '—' });
  }
}

// ---------------------------------------------------------------------------------------------
if (corpusPresent() && only.has('world')) {
  log(`\n## World (${runs} runs: corpus under its host names, probes on and off, DNS stall, image host hang, name cache)`);
  const world = await runWorldBench({ runs, concurrency: 16, only: new Set(['defaults', 'stall', 'hang', 'cache']), log });
  rows.push(...world.rows);
  details.push('', 'World (bench/world.ts)', '', ...world.details);
}

// ---------------------------------------------------------------------------------------------
const childSummaries: string[] = [];
if (only.has('children')) {
  const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const children: { name: string; command: string[] }[] = [];
  for (const name of ['bench:extract', 'bench:proxy', 'bench:probe-cost', 'bench:stalls']) {
    const file = path.join(REPO_ROOT, 'bench', `${name.slice('bench:'.length)}.ts`);
    if (scripts[name]) children.push({ name, command: ['npm', 'run', '-s', name] });
    else if (existsSync(file)) children.push({ name, command: [process.execPath, '--import', 'tsx', file] });
  }
  for (const child of children) {
    log(`\n## ${child.name}`);
    const { code, output } = await spawnAndEcho(child.command);
    // Their ratio and target lines go into the summary as they printed them.
    const lines = output.split('\n').filter((l) => /ratio|target|×/i.test(l) && l.trim().length < 220);
    childSummaries.push(`${child.name}${code === 0 ? '' : ` (exit ${code})`}:`, ...lines.map((l) => `    ${l.trim()}`));
  }
}

// ---------------------------------------------------------------------------------------------
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const header = [
  `LinkPeek benchmarks — ${new Date().toISOString().slice(0, 10)}, \`npm run bench\` (${process.argv.slice(2).join(' ') || 'defaults'}),` +
    ` ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'cpu'}), Node ${process.version}, ${minutes} min.`,
  `Medians of ${runs} runs with min–max beside them; ratios are ours ÷ peer (or ÷ limit) per run, then their median. The machine is shared: read ratios, not absolutes.`,
];
const table = [
  '| benchmark | metric | LinkPeek | against | ratio | target | met |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.benchmark} | ${r.metric} | ${r.ours} | ${r.against} | ${r.ratio} | ${r.target} | ${r.met} |`),
];
const report = [...header, '', ...table, ...details, ...(childSummaries.length ? ['', 'Spawned benchmarks:', '', '```', ...childSummaries, '```'] : [])].join(
  '\n',
);
console.log(`\n# Summary\n\n${report}`);
mkdirSync(path.dirname(args.out!), { recursive: true });
writeFileSync(args.out!, report + '\n');
console.log(`\n(written to ${path.relative(REPO_ROOT, args.out!)})`);

function spawnAndEcho(command: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Its own process group: if it dies and leaves a child of its own holding our pipes (a fixture
    // server), that group is ended once it exits, so the summary never waits on it.
    const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      process.stdout.write(text);
      output += text;
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code) => {
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // the group is already gone
        }
        resolve({ code, output });
      }, 1000);
    });
  });
}
