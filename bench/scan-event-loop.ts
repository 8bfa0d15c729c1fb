// npx tsx bench/scan-event-loop.ts [--seconds N] — how long other work waits for the event loop
// while 8 heavy pages (bench/lib/worst-pages.ts) are scanned over and over, concurrently, beside
// the same process with nothing scanned (the baseline, taken in the same run). A bystander asks for
// a turn of the event loop every 5 ms (what a cached answer needs) and records how late it came.
// Modes: `idle` (no scans), `paced` (the scan as the service runs it: SCAN_BUDGET_MS, pieces and
// turns of the event loop), `unpaced` (the same scans on a clock that never moves: no budget and no
// turns, as the scan ran before it had either). Each page arrives in 64 KiB chunks, a turn of the
// event loop apart, as from a socket.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { extractBoth } from '../src/metadata/extract.js';
import { scanHead, type ScanHeadOptions } from '../wasm-parser/index.js';
import { type WorstPage, worstPages } from './lib/worst-pages.js';

const HEAVY = [
  '<base> flood',
  '<meta> flood',
  '<i> flood',
  '<link> flood',
  '<html> flood',
  'late <meta charset> (re-scan of <i> flood)',
  'one <meta> with 32 KB of attributes',
  '10,000 <meta> with 1 KB attributes',
];
const config = loadConfig({});
const pageUrl = new URL('https://worst.test/page');
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function* arriving(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += 64 * 1024) {
    await turn();
    yield bytes.subarray(at, at + 64 * 1024);
  }
}

type Mode = 'idle' | 'paced' | 'unpaced';
const still = (): number => 0;
const optionsOf = (mode: Mode): ScanHeadOptions => (mode === 'paced' ? { budgetMs: config.scanBudgetMs } : { clock: still, cpuClock: still });

async function scanLoop(page: WorstPage, mode: Mode, until: number): Promise<number> {
  let scans = 0;
  while (performance.now() < until) {
    const scan = await scanHead(arriving(page.bytes), { ...optionsOf(mode), contentType: page.contentType, retainChunks: true });
    extractBoth(scan.tags, pageUrl);
    scans++;
  }
  return scans;
}

/** Lateness of a turn of the event loop asked for every 5 ms, in ms. */
async function bystander(until: number): Promise<number[]> {
  const late: number[] = [];
  while (performance.now() < until) {
    const asked = performance.now();
    await turn();
    late.push(performance.now() - asked);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return late;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

async function run(mode: Mode, seconds: number, pages: WorstPage[]) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const until = performance.now() + seconds * 1000;
  histogram.enable();
  const [late, ...scans] = await Promise.all([bystander(until), ...(mode === 'idle' ? [] : pages.map((page) => scanLoop(page, mode, until)))]);
  histogram.disable();
  const sorted = (late as number[]).sort((a, b) => a - b);
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  return {
    mode,
    scans: (scans as number[]).reduce((a, b) => a + b, 0),
    turn: `${quantile(sorted, 0.5).toFixed(2)} / ${quantile(sorted, 0.99).toFixed(1)} / ${sorted.at(-1)!.toFixed(1)}`,
    loop: `${ms(histogram.percentile(50))} / ${ms(histogram.percentile(99))} / ${ms(histogram.max)}`,
  };
}

async function main(): Promise<void> {
  const secondsAt = process.argv.indexOf('--seconds');
  const seconds = secondsAt > 0 ? Number(process.argv[secondsAt + 1]) : 4;
  const all = worstPages();
  const pages = HEAVY.map((name) => all.find((page) => page.name === name)!);
  // Warm-up: JIT and WebAssembly compiled before anything is measured.
  for (const page of pages) await scanHead(page.bytes, { budgetMs: config.scanBudgetMs });
  console.log(`bench:scan-event-loop, 8 heavy pages scanned concurrently, ${seconds} s per mode (SCAN_BUDGET_MS=${config.scanBudgetMs})`);
  console.log('| mode | scans | bystander turn ms p50 / p99 / max | event-loop delay ms p50 / p99 / max |');
  console.log('|---|---:|---|---|');
  for (const mode of ['idle', 'paced', 'unpaced', 'idle', 'paced'] as const) {
    const row = await run(mode, seconds, pages);
    console.log(`| ${row.mode} | ${row.scans} | ${row.turn} | ${row.loop} |`);
  }
}

await main();
