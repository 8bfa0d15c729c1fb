// npx tsx bench/scan-threads.ts — what the scan threads buy and cost, LinkPeek against itself:
// the same build with SCAN_WORKERS at its default (one a core) and at 0 (pages scanned on the
// event loop), alternated run by run. Per run: uncached pages/s and p99 at c=16 and c=64, the
// process's CPU seconds per wall second while CPU-bound (above 1: more than one core used), CPU
// ms per page, RSS at idle (after start and a short warm-up) and peak RSS. `--runs N` (3),
// `--duration S` (8).

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startUpstream } from './e2e.js';
import { linkpeek } from './lib/contenders.js';
import { cpuMsOf, memoryOf } from './lib/proc.js';
import { runLoad } from './lib/run-load.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '3' }, duration: { type: 'string', default: '8' } } });
const runs = Number(args.runs);
const duration = Number(args.duration);
const modes: { name: string; env: Record<string, string> }[] = [
  { name: `threads (SCAN_WORKERS=${availableParallelism()})`, env: {} },
  { name: 'inline (SCAN_WORKERS=0)', env: { SCAN_WORKERS: '0' } },
];
type Row = { pagesPerS: number; p99: number; coresUsed: number; cpuMsPerPage: number; idleMb: number; peakMb: number };
const results = new Map<string, Map<number, Row[]>>(modes.map((m) => [m.name, new Map()]));

const upstream = await startUpstream();
try {
  for (let run = 1; run <= runs; run++) {
    for (const mode of run % 2 ? modes : [...modes].reverse()) {
      for (const connections of [16, 64]) {
        const server = await linkpeek(mode.name, mode.env).start();
        try {
          const base = { origin: server.origin, prefix: '/v1/metadata?url=', upstream: upstream.origin, mode: 'unique' as const };
          await runLoad({ ...base, run: `warm-${run}-${connections}`, connections: 8, durationSeconds: 2 });
          const idleMb = memoryOf(server.pid).rssMb;
          const cpuBefore = cpuMsOf(server.pid);
          const load = await runLoad({ ...base, run: `run-${run}-${connections}`, connections, durationSeconds: duration });
          const cpuMs = cpuMsOf(server.pid) - cpuBefore;
          const row: Row = {
            pagesPerS: load.okPerSecond,
            p99: load.p99,
            coresUsed: cpuMs / 1000 / load.seconds,
            cpuMsPerPage: cpuMs / Math.max(1, load.ok),
            idleMb,
            peakMb: memoryOf(server.pid).peakMb,
          };
          const byC = results.get(mode.name)!;
          byC.set(connections, [...(byC.get(connections) ?? []), row]);
          console.log(
            `run ${run} ${mode.name} c=${connections}: ${row.pagesPerS.toFixed(0)} pages/s, p99 ${row.p99} ms, ${row.coresUsed.toFixed(2)} cores, ${row.cpuMsPerPage.toFixed(2)} ms CPU/page, RSS idle ${row.idleMb.toFixed(0)} MB, peak ${row.peakMb.toFixed(0)} MB`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  }
} finally {
  await upstream.stop();
}

console.log(`\n| mode | c | pages/s | p99 ms | CPU s per wall s | CPU ms/page | RSS idle MB | peak RSS MB |\n|---|---|---|---|---|---|---|---|`);
for (const [mode, byC] of results) {
  for (const [c, rows] of byC) {
    const m = (f: (r: Row) => number) => median(rows.map(f));
    console.log(
      `| ${mode} | ${c} | ${m((r) => r.pagesPerS).toFixed(0)} | ${m((r) => r.p99).toFixed(0)} | ${m((r) => r.coresUsed).toFixed(2)} | ${m((r) => r.cpuMsPerPage).toFixed(2)} | ${m((r) => r.idleMb).toFixed(0)} | ${m((r) => r.peakMb).toFixed(0)} |`,
    );
  }
}
