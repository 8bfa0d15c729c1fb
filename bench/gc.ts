import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// GC_HEAP_GROWTH_PERCENT (src/gc.ts) must really change how V8 manages the old generation, set
// after start-up as src/main.ts sets it. The same workload runs in two fresh processes: it keeps
// ~20,000 small records alive while making 400,000 (about 700 MB), so most of what it allocates is
// promoted before it dies, as a page's objects are under load. It reports how many full collections
// ran and the largest heap it reached.

const root = fileURLToPath(new URL('../../', import.meta.url));

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
  assert.is(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as GcRun;
}

test('GC_HEAP_GROWTH_PERCENT collects the old generation more often and keeps the heap smaller', () => {
  const own = runWorkload(0);
  const tuned = runWorkload(50);
  const seen = `50%: ${tuned.full} full collections, peak heap ${tuned.peakMb.toFixed(0)} MB; V8's own: ${own.full}, ${own.peakMb.toFixed(0)} MB`;
  assert.ok(tuned.full > own.full, seen);
  assert.ok(tuned.peakMb < 0.8 * own.peakMb, seen);
});

test.run();
