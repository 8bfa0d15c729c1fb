import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// `prepare` in a production install (`npm ci --omit=dev`: no TypeScript, so no build) says in
// one line what it did: used the prebuilt dist/ that is there, or built nothing and how to build.

const PREPARE = fileURLToPath(new URL('../../scripts/prepare.mjs', import.meta.url));

/** A checkout without devDependencies: scripts/prepare.mjs alone, and a dist/ when `prebuilt`. */
function runPrepare(prebuilt: boolean) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'linkpeek-prepare-'));
  try {
    mkdirSync(path.join(root, 'scripts'));
    copyFileSync(PREPARE, path.join(root, 'scripts', 'prepare.mjs'));
    if (prebuilt) {
      mkdirSync(path.join(root, 'dist', 'server', 'src'), { recursive: true });
      writeFileSync(path.join(root, 'dist', 'server', 'src', 'main.js'), '');
    }
    return spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('without devDependencies and with a prebuilt dist/: exit 0, saying the prebuilt dist/ is used', () => {
  const run = runPrepare(true);
  assert.equal([run.status, run.stdout, run.stderr], [0, '', 'linkpeek: devDependencies not installed: using the prebuilt dist/\n']);
});

test('without devDependencies and without dist/: exit 0, saying how to build it', () => {
  const run = runPrepare(false);
  assert.equal(
    [run.status, run.stdout, run.stderr],
    [0, '', 'linkpeek: devDependencies not installed, dist/ not built (build with `npm ci && npm run build`, then `npm prune --omit=dev`)\n'],
  );
});

test.run();
