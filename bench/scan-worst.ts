// npm run bench:scan-worst — CPU per page of the fetch-less pipeline (charset choice + scanHead +
// the rules of both preferences) on the most expensive heads we could build (bench/lib/worst-pages.ts),
// each at most MAX_PAGE_BYTES, and the longest stretch one scan held the event loop (each page
// arrives in 64 KiB chunks). Prints every page, worst first, and the worst case against the target
// (50 ms of CPU). `--runs N` (default 3): medians of N runs per page after one warm-up.

import { mediaTypeCharset } from '../src/media-type.js';
import { loadConfig } from '../src/config.js';
import { extractBoth } from '../src/metadata/extract.js';
import { MAX_TAGS, scanHead } from '../wasm-parser/index.js';
import { type WorstPage, worstPages } from './lib/worst-pages.js';

const TARGET_MS = 50;
const config = loadConfig({});
const pageUrl = new URL('https://worst.test/page');

/** The pipeline as the service runs it on one page, without the fetch. */
async function extract(page: WorstPage): Promise<{ markupLimit: boolean }> {
  // The service's chunks are what the socket or the decoder yields: 64 KiB here.
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < page.bytes.length; at += 64 * 1024) yield page.bytes.subarray(at, at + 64 * 1024);
  }
  const scan = await scanHead(chunks(), { httpCharset: mediaTypeCharset(page.contentType), retainChunks: true });
  extractBoth(scan.tags, pageUrl);
  return { markupLimit: scan.markupLimit === true };
}

function cpuMs(started: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** The longest gap between two turns of the event loop while `run` goes: its longest blocking stretch. */
async function longestStretch(run: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  let going = true;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  await run();
  going = false;
  // The stretch that ends with the run is measured by the next turn.
  await new Promise((resolve) => setImmediate(resolve));
  return longest;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function main(): Promise<void> {
  const runsAt = process.argv.indexOf('--runs');
  const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 3;
  const rows: { name: string; cpu: number; stretch: number; markupLimit: boolean }[] = [];
  for (const page of worstPages()) {
    await extract(page);
    const times: number[] = [];
    let markupLimit = false;
    for (let i = 0; i < runs; i++) {
      const started = process.cpuUsage();
      markupLimit = (await extract(page)).markupLimit;
      times.push(cpuMs(started));
    }
    // The machine is shared: a run that lost its core shows a long stretch that is not the scan's.
    const stretches: number[] = [];
    for (let i = 0; i < runs; i++) stretches.push(await longestStretch(() => extract(page)));
    rows.push({ name: page.name, cpu: median(times), stretch: median(stretches), markupLimit });
  }
  rows.sort((a, b) => b.cpu - a.cpu);
  console.log(`bench:scan-worst, ${rows.length} pages of at most ${config.maxPageBytes} bytes, median of ${runs} runs (MAX_TAGS=${MAX_TAGS})`);
  console.log('| page | CPU ms | longest stretch ms | markup bound |');
  console.log('|---|---:|---:|---|');
  for (const row of rows) console.log(`| ${row.name} | ${row.cpu.toFixed(1)} | ${row.stretch.toFixed(1)} | ${row.markupLimit ? 'yes' : ''} |`);
  const worst = rows[0]!;
  const longest = rows.reduce((a, b) => (b.stretch > a.stretch ? b : a));
  console.log(`worst CPU: ${worst.cpu.toFixed(1)} ms (${worst.name}); target ${TARGET_MS} ms: ${worst.cpu <= TARGET_MS ? 'met' : 'MISSED'}`);
  console.log(`longest blocking stretch: ${longest.stretch.toFixed(1)} ms (${longest.name})`);
}

await main();
