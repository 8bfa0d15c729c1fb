// How GC_HEAP_GROWTH_PERCENT (src/gc.ts), set after start-up as src/main.ts sets it, changes how
// V8 manages the old generation: `npx tsx bench/gc.ts`. The same workload runs in two fresh
// processes: it keeps ~20,000 small records alive while making 400,000 (about 700 MB), so most of what it allocates is
// promoted before it dies, as a page's objects are under load. It reports how many full collections
// ran and the largest heap it reached.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

const WORKLOAD = `
import v8 from 'node:v8';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { tuneGarbageCollection } from './src/gc.ts';
tuneGarbageCollection(Number(process.env.PERCENT));
let full = 0;
let peak = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
});
observer.observe({ entryTypes: ['gc'] });
const live = new Array(20_000);
for (let i = 0; i < 400_000; i++) {
  live[i % live.length] = { id: i, tags: Array.from({ length: 16 }, (_, k) => 'tag-' + i + '-' + k) };
  if (i % 1000 === 0) peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
}
await new Promise((resolve) => setTimeout(resolve, 100)); // the observer reports asynchronously
observer.disconnect();
console.log(JSON.stringify({ full, peakMb: peak / 2 ** 20 }));
`;

interface GcRun {
  full: number;
  peakMb: number;
}

function runWorkload(percent: number): GcRun {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', WORKLOAD], {
    cwd: root,
    env: { ...process.env, PERCENT: String(percent) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`GC workload (GC_HEAP_GROWTH_PERCENT=${percent}) failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as GcRun;
}

const own = runWorkload(0);
const tuned = runWorkload(50);
console.log('| GC_HEAP_GROWTH_PERCENT | full collections | peak heap (MB) |');
console.log('| --- | --- | --- |');
console.log(`| V8's own (0) | ${own.full} | ${own.peakMb.toFixed(0)} |`);
console.log(`| 50 | ${tuned.full} | ${tuned.peakMb.toFixed(0)} |`);
