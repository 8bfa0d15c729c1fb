// The corpus as the end-to-end benchmarks serve it (../shared/corpus, read relative to the repo).
// Every page is served under /page/<name> with the charset its manifest entry declares, the way a
// real server would label it; a page with no declared charset is served as bare text/html.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CORPUS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'corpus');

export interface CorpusPage {
  /** The file name without directory, e.g. readability-001.html: the path segment it is served under. */
  name: string;
  contentType: string;
  size: number;
}

interface ManifestEntry {
  file: string;
  bytes: number;
  charset_declared: string | null;
}

export function corpusPresent(): boolean {
  return existsSync(path.join(CORPUS_DIR, 'manifest.json'));
}

export function loadManifest(): CorpusPage[] {
  const manifest = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'manifest.json'), 'utf8')) as ManifestEntry[];
  return manifest.map((entry) => ({
    name: path.basename(entry.file),
    contentType: entry.charset_declared ? `text/html; charset=${entry.charset_declared}` : 'text/html',
    size: entry.bytes,
  }));
}

export function readPage(name: string): Buffer {
  return readFileSync(path.join(CORPUS_DIR, 'pages', name));
}

/**
 * The order pages are asked for: one fixed shuffle (seeded), so every contender sees the same
 * sequence and a contender that finishes fewer requests still sees a fair sample of the corpus.
 */
export function requestOrder(pages: readonly CorpusPage[], seed = 9): CorpusPage[] {
  const out = [...pages];
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
