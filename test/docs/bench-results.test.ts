import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './code-blocks.js';

// bench/results/ is a record of what is measured now, not a diary: every file of this repository
// that a results file names exists (a test file may be named without its .test.ts), and no section is headed by a date (a measurement says when
// it was taken in its text; the runs it replaced are in git history).

const RESULTS = 'bench/results';
const files = readdirSync(path.join(REPO_ROOT, RESULTS)).filter((f) => f.endsWith('.md'));

/** Paths into this repository's folders that a Markdown text names (in backticks or not). */
export function namedPaths(text: string): string[] {
  const found = text.matchAll(/(?<![\w/.-])((?:src|bench|test|scripts|element|client|wasm-parser|docs|deploy|generated)\/[\w./{}-]*[\w}])/g);
  return [...new Set([...found].map((m) => m[1]!))];
}

test('the path finder sees paths in prose and backticks, not URLs or /tmp files', () => {
  const text = 'see `src/api/router.ts` and bench/lib/worst-pages.ts, not /tmp/bench/x.md or https://x.test/src/a.ts; test/scan/.';
  assert.equal(namedPaths(text), ['src/api/router.ts', 'bench/lib/worst-pages.ts', 'test/scan']);
});

test('every file and folder a results file names exists', () => {
  assert.ok(files.length >= 10, `${files.length} results files`);
  const missing = files.flatMap((f) =>
    namedPaths(readFileSync(path.join(REPO_ROOT, RESULTS, f), 'utf8'))
      // A test file may be named as the runner names it, without its extension.
      .filter((p) => !['', '.ts', '.test.ts'].some((ext) => existsSync(path.join(REPO_ROOT, p + ext))))
      .map((p) => `${f}: ${p}`),
  );
  assert.equal(missing, []);
});

test('no section of a results file is headed by a date', () => {
  const dated = files.flatMap((f) =>
    readFileSync(path.join(REPO_ROOT, RESULTS, f), 'utf8')
      .split('\n')
      .filter((line) => /^#+ .*\b20\d\d-\d\d-\d\d\b/.test(line))
      .map((line) => `${f}: ${line}`),
  );
  assert.equal(dated, []);
});

test.run();
