// Memory over a long run: LinkPeek started fresh, warmed with 1,000 uncached requests,
// then asked for `batches` × `perBatch` pages it has never seen at concurrency 64. VmRSS after the
// warm-up is the start; VmRSS after each batch shows whether it levels off once the bounded
// caches (CACHE_MAX_ENTRIES / CACHE_MAX_BYTES, and the response cache) are full. Run twice by
// bench/all.ts: with the default caches (10,000 entries: full at the end of 10,000 requests, so the
// growth there is the caches filling), and with CACHE_MAX_ENTRIES=500 (full after the warm-up), where
// any growth across the batches would be a leak rather than a cache.

import { linkpeek } from './lib/contenders.js';
import { memoryOf } from './lib/proc.js';
import { runLoad } from './lib/run-load.js';
import { startUpstream } from './e2e.js';

export interface MemoryOptions {
  batches: number;
  perBatch: number;
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface MemoryResult {
  startMb: number;
  afterMb: number[];
  peakMb: number;
  requests: number[];
  errors: number;
}

export async function runMemory(opts: MemoryOptions): Promise<MemoryResult> {
  const log = opts.log ?? (() => {});
  const upstream = await startUpstream();
  const server = await linkpeek('LinkPeek', opts.env ?? {}).start();
  try {
    const base = { origin: server.origin, prefix: '/v1/metadata?url=', upstream: upstream.origin, mode: 'unique' as const };
    await runLoad({ ...base, run: 'warm', connections: 8, amount: 1000 });
    await new Promise((r) => setTimeout(r, 500));
    const startMb = memoryOf(server.pid).rssMb;
    log(`  RSS after warm-up: ${startMb.toFixed(0)} MB`);
    const afterMb: number[] = [];
    const requests: number[] = [];
    let errors = 0;
    for (let b = 1; b <= opts.batches; b++) {
      const load = await runLoad({ ...base, run: `batch${b}`, connections: 64, amount: opts.perBatch });
      errors += load.non2xx + load.errors + load.timeouts;
      await new Promise((r) => setTimeout(r, 500));
      const rss = memoryOf(server.pid).rssMb;
      afterMb.push(rss);
      requests.push(b * opts.perBatch);
      log(
        `  RSS after ${b * opts.perBatch} more requests: ${rss.toFixed(0)} MB (${load.okPerSecond.toFixed(0)} pages/s, ${load.non2xx + load.errors + load.timeouts} errors)`,
      );
    }
    return { startMb, afterMb, peakMb: memoryOf(server.pid).peakMb, requests, errors };
  } finally {
    await server.stop();
    await upstream.stop();
  }
}
