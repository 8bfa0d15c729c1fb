// End to end, uncached: a local upstream (its own process) serves the corpus; each
// contender (its own process, started fresh per run) is asked by autocannon (its own process) for
// pages it has never seen (/page/<name>?v=<run>-<n>), at each concurrency, for a fixed duration.
// Runs are interleaved — run 1 of every contender at c=16, then at c=64, then run 2… — and the
// contender order rotates each run, so the others' load on this shared machine falls on all alike.
//
// Reported per run: pages/s (2xx answers per second), p50 and p99 latency, errors (non-2xx,
// socket errors, timeouts), peak RSS (VmHWM of the contender's process at the end of the run,
// which covers its start, the warm-up and the run), and the share of each page the upstream handed
// to the socket (bench/lib/upstream.ts explains why that is an upper bound). Beside them, the CPU
// time the contender's process spent per answer (from /proc/<pid>/stat): far less sensitive than
// throughput to what else runs on the machine, so it is the steadier figure to compare.

import type { LoadResult } from './lib/load.js';
import { linkpeek, peer, PEER_NAMES, type Contender } from './lib/contenders.js';
import { cpuMsOf, memoryOf, startServer, type Server } from './lib/proc.js';
import { runLoad } from './lib/run-load.js';

export interface E2EOptions {
  runs: number;
  concurrencies: number[];
  durationSeconds: number;
  /**
   * Seconds of uncounted load first, at concurrency 8: the same time for every contender, so
   * each measured run sees code the JIT has already compiled (V8 tiers hot JavaScript and
   * WebAssembly functions up as they run).
   */
  warmupSeconds: number;
  contenders?: Contender[];
  log?: (line: string) => void;
}

export interface UpstreamRecord {
  page: string;
  size: number;
  written: number;
  complete: boolean;
}

export interface E2ERun {
  contender: string;
  concurrency: number;
  run: number;
  load: LoadResult;
  peakMb: number;
  /** CPU time of the contender's process per answered page during the measured run (ms). */
  cpuMsPerPage: number;
  served: UpstreamRecord[];
}

export async function startUpstream(): Promise<Server> {
  return startServer('upstream', 'bench/lib/upstream.ts');
}

export async function upstreamStats(upstream: Server): Promise<UpstreamRecord[]> {
  const res = await fetch(`${upstream.origin}/__stats`);
  return (await res.json()) as UpstreamRecord[];
}

export async function runE2E(opts: E2EOptions): Promise<E2ERun[]> {
  const log = opts.log ?? (() => {});
  const contenders = opts.contenders ?? [linkpeek(), ...PEER_NAMES.map(peer)];
  const upstream = await startUpstream();
  const out: E2ERun[] = [];
  try {
    for (let run = 1; run <= opts.runs; run++) {
      for (const concurrency of opts.concurrencies) {
        const shift = (run - 1) % contenders.length;
        const order = [...contenders.slice(shift), ...contenders.slice(0, shift)];
        for (const contender of order) {
          const server = await contender.start();
          try {
            const base = { origin: server.origin, prefix: contender.prefix, upstream: upstream.origin, mode: 'unique' as const };
            if (opts.warmupSeconds > 0) await runLoad({ ...base, run: `w${run}c${concurrency}`, connections: 8, durationSeconds: opts.warmupSeconds });
            await upstreamStats(upstream); // drop the warm-up's records
            const cpuBefore = cpuMsOf(server.pid);
            const load = await runLoad({ ...base, run: `r${run}c${concurrency}`, connections: concurrency, durationSeconds: opts.durationSeconds });
            const cpuMsPerPage = (cpuMsOf(server.pid) - cpuBefore) / Math.max(1, load.total);
            const { peakMb } = memoryOf(server.pid);
            // In-flight responses the load generator dropped at its deadline are still in the records.
            await new Promise((r) => setTimeout(r, 200));
            const served = await upstreamStats(upstream);
            out.push({ contender: contender.name, concurrency, run, load, peakMb, cpuMsPerPage, served });
            log(
              `  run ${run} c=${String(concurrency).padEnd(3)} ${contender.name.padEnd(20)} ${load.okPerSecond.toFixed(1).padStart(7)} pages/s` +
                `  p50 ${String(load.p50).padStart(5)} ms  p99 ${String(load.p99).padStart(5)} ms` +
                `  errors ${load.non2xx + load.errors + load.timeouts}  peak RSS ${peakMb.toFixed(0)} MB  CPU ${cpuMsPerPage.toFixed(2)} ms/page`,
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
  return out;
}
