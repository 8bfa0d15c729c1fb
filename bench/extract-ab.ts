// npm run bench:extract-ab -- REF [PASSES] — the extraction pipeline of this working tree against the
// one of a git revision (a commit, a branch, HEAD), in one process: scanHead + extractBoth over
// every corpus page, a pass of one tree then a pass of the other, alternating which goes first,
// CPU time (user + system) per page. Both trees run against the same node_modules, in the same
// process, under the same load, so the ratio holds where two separate `bench:extract` runs move
// by 10–40% on a shared machine (run against the same revision it reads 1.00).
// Prints both trees' median µs per page and the median and spread of the per-round ratios.
// Reads ../shared/corpus when present; skips with a message when absent.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScanResult } from '../wasm-parser/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusDir = path.resolve(root, '..', 'shared', 'corpus');

interface Pipeline {
  scanHead(bytes: Uint8Array, options: { retainChunks: boolean }): Promise<ScanResult>;
  extractBoth(tags: ScanResult['tags'], pageUrl: URL): unknown;
}

async function loadPipeline(tree: string): Promise<Pipeline> {
  const { scanHead } = (await import(path.join(tree, 'wasm-parser', 'index.ts'))) as Pick<Pipeline, 'scanHead'>;
  const { extractBoth } = (await import(path.join(tree, 'src', 'metadata', 'extract.ts'))) as Pick<Pipeline, 'extractBoth'>;
  return { scanHead, extractBoth };
}

/** The revision's files in a temporary folder, with this tree's node_modules beside them. */
function checkOut(ref: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-ab-'));
  const archive = execFileSync('git', ['archive', '--format=tar', ref], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};

async function main(): Promise<void> {
  const [ref, passesArg] = process.argv.slice(2);
  if (!ref) throw new Error('usage: npm run bench:extract-ab -- REF [PASSES]');
  if (!existsSync(path.join(corpusDir, 'manifest.json'))) {
    console.log(`bench:extract-ab: no corpus at ${corpusDir}; skipped.`);
    return;
  }
  const passes = Number(passesArg ?? 30);
  const manifest = JSON.parse(readFileSync(path.join(corpusDir, 'manifest.json'), 'utf8')) as {
    file: string;
    original_url: string | null;
    hosted_url?: string;
  }[];
  const pages = manifest.map((entry) => ({
    bytes: readFileSync(path.join(corpusDir, entry.file)),
    url: new URL(entry.original_url ?? entry.hosted_url ?? 'https://example.org/test/page.html'),
  }));
  const other = checkOut(ref);
  try {
    const trees = { [ref]: await loadPipeline(other), 'working tree': await loadPipeline(root) };
    const names = Object.keys(trees);
    const pass = async (pipeline: Pipeline): Promise<number> => {
      const started = process.cpuUsage();
      // retainChunks as the service passes it (src/metadata/service.ts): the pages never change.
      for (const page of pages) pipeline.extractBoth((await pipeline.scanHead(page.bytes, { retainChunks: true })).tags, page.url);
      const used = process.cpuUsage(started);
      return (used.user + used.system) / pages.length;
    };
    // Warm-up rounds (JIT, lazy module state) are not counted.
    for (let i = 0; i < 3; i++) for (const name of names) await pass(trees[name]!);
    const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const ratios: number[] = [];
    for (let round = 0; round < passes; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) times[name]!.push(await pass(trees[name]!));
      ratios.push(times['working tree']!.at(-1)! / times[ref]!.at(-1)!);
    }
    console.log(`bench:extract-ab over ${pages.length} corpus pages, ${passes} alternating rounds (CPU time per page, median)`);
    for (const name of names) console.log(`  ${name.padEnd(14)} ${median(times[name]!).toFixed(1).padStart(7)} µs`);
    const sorted = [...ratios].sort((a, b) => a - b);
    const quartile = (q: number) => sorted[Math.floor(q * (sorted.length - 1))]!.toFixed(3);
    console.log(
      `  working tree / ${ref}: median ${median(ratios).toFixed(3)}, quartiles ${quartile(0.25)}–${quartile(0.75)}, range ${quartile(0)}–${quartile(1)}`,
    );
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
}

await main();
