// npm run bench:extract — scanner + rules over the corpus pages held in memory, beside
// open-graph-scraper and metascraper given the same HTML in memory, in the same run (targets
// "Speed": target ≥ 30× the faster peer in pages/s, < 10% of page bytes consumed at the median).
// Reads ../shared/corpus when present; skips with a message when absent.
// BENCH_ROUNDS (default 5) sets how many passes over the corpus our pipeline makes; the peers make
// one (they are slower by orders of magnitude, and one pass already takes them seconds).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ogs from 'open-graph-scraper';
import metascraper from 'metascraper';
import metascraperTitle from 'metascraper-title';
import metascraperDescription from 'metascraper-description';
import metascraperImage from 'metascraper-image';
import metascraperUrl from 'metascraper-url';
import metascraperLogoFavicon from 'metascraper-logo-favicon';
import { HeadScanner, scanHead } from '../wasm-parser/index.js';
import { extractMetadata } from '../src/metadata/extract.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusDir = path.resolve(root, '..', 'shared', 'corpus');

interface Page {
  name: string;
  url: URL;
  bytes: Uint8Array;
  /** The peers' input, made only after our runs so our peak RSS holds the bytes alone. */
  html?: string;
}

function loadCorpus(): Page[] {
  const manifest = JSON.parse(readFileSync(path.join(corpusDir, 'manifest.json'), 'utf8')) as {
    file: string;
    original_url: string | null;
    hosted_url?: string;
  }[];
  return manifest.map((entry) => {
    const bytes: Uint8Array = readFileSync(path.join(corpusDir, entry.file)); // a Buffer: no copy
    return {
      name: entry.file,
      // metascraper rejects a host without a TLD (readability's http://fakehost/): use example.org.
      url: new URL(entry.original_url ?? entry.hosted_url ?? 'https://example.org/test/page.html'),
      bytes,
    };
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function timeIt(label: string, pages: Page[], rounds: number, run: (page: Page) => Promise<unknown>) {
  // One warm-up pass (JIT, lazy module state) is not counted.
  for (const page of pages.slice(0, 20)) await run(page);
  const started = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const page of pages) await run(page);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const count = pages.length * rounds;
  const megabytes = (pages.reduce((sum, p) => sum + p.bytes.length, 0) * rounds) / 1e6;
  console.log(
    `  ${label.padEnd(22)} ${(count / seconds).toFixed(1).padStart(9)} pages/s  ${(megabytes / seconds).toFixed(1).padStart(8)} MB/s` +
      `  (${count} pages in ${seconds.toFixed(2)} s)`,
  );
  return count / seconds;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(corpusDir, 'manifest.json'))) {
    console.log(`bench:extract: no corpus at ${corpusDir}; skipped.`);
    return;
  }
  const pages = loadCorpus();
  const loadedRss = process.memoryUsage().rss / 1024 / 1024;
  const totalBytes = pages.reduce((sum, p) => sum + p.bytes.length, 0);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  console.log(`bench:extract over ${pages.length} corpus pages, ${(totalBytes / 1e6).toFixed(1)} MB, all in memory\n`);

  const consumed: number[] = [];
  const consumedShare: number[] = [];
  const floorShare: number[] = [];
  for (const page of pages) {
    const scan = await scanHead(page.bytes);
    consumed.push(scan.bytesConsumed);
    consumedShare.push(scan.bytesConsumed / page.bytes.length);
    // The floor: 16-byte blocks stop within 16 bytes of the end of the `<body>` tag itself.
    const fine = new HeadScanner({ blockSize: 16, maxBlockSize: 16 });
    await fine.write(page.bytes);
    floorShare.push((await fine.end()).bytesConsumed / page.bytes.length);
  }

  const ourPipeline = async (page: Page) => {
    const scan = await scanHead(page.bytes);
    return extractMetadata(scan.tags, 'og', page.url);
  };
  const oursBefore = await timeIt('linkpeek scan+rules', pages, rounds, ourPipeline);
  const oursPeakRss = process.resourceUsage().maxRSS / 1024;

  // The fixed cost of one document: a fresh rewriter, its 8 selectors compiled, freed.
  const fixedRounds = 10_000;
  const fixedStart = process.hrtime.bigint();
  for (let i = 0; i < fixedRounds; i++) await new HeadScanner().end();
  const fixedMicros = Number(process.hrtime.bigint() - fixedStart) / 1e3 / fixedRounds;

  // The peers take a string: the same bytes read as UTF-8 (what they do when handed bytes).
  for (const page of pages) page.html = Buffer.from(page.bytes).toString('utf8');

  const ogsPerSecond = await timeIt('open-graph-scraper', pages, 1, async (page) => {
    const { result } = await ogs({ html: page.html! });
    return result;
  });
  const scrape = metascraper([
    metascraperTitle(),
    metascraperDescription(),
    metascraperImage(),
    metascraperUrl(),
    // No network: the favicon rule must not probe candidates or ask Google.
    metascraperLogoFavicon({
      favicon: false,
      google: false,
      rootFavicon: false,
      // Every candidate counts as reachable, as if probed: its own URL is the answer.
      resolveFaviconUrl: (async (url: string) => ({ url })) as never,
    }),
  ]);
  const metascraperPerSecond = await timeIt('metascraper', pages, 1, async (page) => scrape({ html: page.html!, url: page.url.href }));

  // Ours again after the peers: the machine is shared, so the ratio uses the mean of both runs.
  const oursAfter = await timeIt('linkpeek (again)', pages, rounds, ourPipeline);
  const ours = (oursBefore + oursAfter) / 2;
  const fastestPeer = Math.max(ogsPerSecond, metascraperPerSecond);
  console.log(`\n  ratio vs open-graph-scraper   ${(ours / ogsPerSecond).toFixed(1)}×`);
  console.log(`  ratio vs metascraper          ${(ours / metascraperPerSecond).toFixed(1)}×`);
  console.log(`  ratio vs the faster peer      ${(ours / fastestPeer).toFixed(1)}×  (target ≥ 30×)`);
  console.log(
    `\n  bytes consumed per page: median ${Math.round(median(consumed))} B of median page ${Math.round(median(pages.map((p) => p.bytes.length)))} B;` +
      ` median share ${(100 * median(consumedShare)).toFixed(1)}% (target < 10%); overall ${((100 * consumed.reduce((a, b) => a + b, 0)) / totalBytes).toFixed(1)}%`,
  );
  console.log(`  where <body> itself ends (16-byte blocks): median share ${(100 * median(floorShare)).toFixed(1)}% — no stop at <body> can consume less`);
  console.log(`  per-document fixed cost (fresh rewriter, 8 selectors, free): ${fixedMicros.toFixed(1)} µs`);
  console.log(
    `  peak RSS after our runs: ${oursPeakRss.toFixed(0)} MB; ${loadedRss.toFixed(0)} MB right after loading the corpus (${(totalBytes / 1e6).toFixed(0)} MB of pages held in memory)`,
  );
  console.log(`  peak RSS after the peers: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}

await main();
