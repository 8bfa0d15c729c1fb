// Cached hits: repeated requests for URLs LinkPeek already answered, beside a bare Koa
// app and a bare openapi-backend route, each in its own process started fresh per run, the load
// generator in another, runs interleaved with the order rotating. LinkPeek keeps its rate limiter
// on (a budget too large to be reached) so hits pay for it as in service. The 392 corpus URLs are
// asked once first (uncounted: that fills the caches), then cycled for the measured duration.

import { bare, linkpeek, type Contender } from './lib/contenders.js';
import type { LoadResult } from './lib/load.js';
import { cpuMsOf, memoryOf } from './lib/proc.js';
import { runLoad } from './lib/run-load.js';
import { startUpstream } from './e2e.js';
import { loadManifest } from './lib/corpus.js';

export interface CachedOptions {
  runs: number;
  durationSeconds: number;
  connections: number;
  log?: (line: string) => void;
}

export interface CachedRun {
  contender: string;
  run: number;
  load: LoadResult;
  peakMb: number;
  /** CPU time of the server process per answer during the measured run (µs). */
  cpuUsPerRequest: number;
  note: string;
}

const CACHED_ENV = { RATE_LIMIT_MAX: '1000000000' };

export async function runCached(opts: CachedOptions): Promise<CachedRun[]> {
  const log = opts.log ?? (() => {});
  const contenders: Contender[] = [bare('koa'), bare('openapi'), linkpeek('LinkPeek (cached)', CACHED_ENV)];
  const pages = loadManifest().length;
  const upstream = await startUpstream();
  const out: CachedRun[] = [];
  try {
    for (let run = 1; run <= opts.runs; run++) {
      const shift = (run - 1) % contenders.length;
      for (const contender of [...contenders.slice(shift), ...contenders.slice(0, shift)]) {
        const server = await contender.start();
        try {
          const base = { origin: server.origin, prefix: contender.prefix, upstream: upstream.origin, mode: 'fixed' as const, run: `cached${run}` };
          await runLoad({ ...base, connections: 8, amount: pages });
          const cpuBefore = cpuMsOf(server.pid);
          const load = await runLoad({ ...base, connections: opts.connections, durationSeconds: opts.durationSeconds });
          const cpuUsPerRequest = ((cpuMsOf(server.pid) - cpuBefore) * 1000) / Math.max(1, load.total);
          const { peakMb } = memoryOf(server.pid);
          out.push({ contender: contender.name, run, load, peakMb, cpuUsPerRequest, note: server.note });
          log(
            `  run ${run} ${contender.name.padEnd(24)} ${load.okPerSecond.toFixed(0).padStart(6)} req/s  p50 ${load.p50} ms  p99 ${load.p99} ms` +
              `  errors ${load.non2xx + load.errors + load.timeouts}  peak RSS ${peakMb.toFixed(0)} MB  CPU ${cpuUsPerRequest.toFixed(0)} µs/req`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  return out;
}
