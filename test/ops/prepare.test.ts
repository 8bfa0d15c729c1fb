import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// `prepare` in a production install (`npm ci --omit=dev`: no TypeScript, so no build) says in
// one line what it did: used the prebuilt dist/ that is there, or built nothing and how to build.
// With the devDependencies, it builds unless dist/ was built from the sources as they are: `npm
// pack` after `npm ci` does not build again.

const PREPARE = fileURLToPath(new URL('../../scripts/prepare.mjs', import.meta.url));
const BUILD_STAMP = fileURLToPath(new URL('../../scripts/build-stamp.mjs', import.meta.url));

/** A checkout with TypeScript installed, whose `npm run build` leaves a mark and stamps dist/ as the real one does. */
function checkoutWithDevDependencies(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'linkpeek-prepare-'));
  mkdirSync(path.join(root, 'scripts'));
  copyFileSync(PREPARE, path.join(root, 'scripts', 'prepare.mjs'));
  copyFileSync(BUILD_STAMP, path.join(root, 'scripts', 'build-stamp.mjs'));
  mkdirSync(path.join(root, 'node_modules', 'typescript'), { recursive: true });
  writeFileSync(path.join(root, 'node_modules', 'typescript', 'package.json'), '{}');
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src', 'index.ts'), 'export {};\n');
  const build = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').appendFileSync('built','x')" && node scripts/build-stamp.mjs write`;
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'checkout', private: true, scripts: { build } }));
  return root;
}

const prepareIn = (root: string) => spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
const builds = (root: string) => (existsSync(path.join(root, 'built')) ? readFileSync(path.join(root, 'built'), 'utf8').length : 0);

/** A checkout without devDependencies: scripts/prepare.mjs alone, and a dist/ when `prebuilt`. */
function runPrepare(prebuilt: boolean) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'linkpeek-prepare-'));
  try {
    mkdirSync(path.join(root, 'scripts'));
    copyFileSync(PREPARE, path.join(root, 'scripts', 'prepare.mjs'));
    copyFileSync(BUILD_STAMP, path.join(root, 'scripts', 'build-stamp.mjs'));
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

test('with devDependencies: builds once, and not again while no source changed (npm pack after npm ci)', () => {
  const root = checkoutWithDevDependencies();
  try {
    const first = prepareIn(root);
    assert.equal([first.status, builds(root)], [0, 1], first.stderr);
    const again = prepareIn(root);
    assert.equal(
      [again.status, again.stderr, builds(root)],
      [0, 'linkpeek: dist/ is built from the current sources: not rebuilt (`npm run build` rebuilds it)\n', 1],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('with devDependencies: a source changed after the build is built again', () => {
  const root = checkoutWithDevDependencies();
  try {
    assert.is(prepareIn(root).status, 0);
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'src', 'index.ts'), later, later);
    const rebuilt = prepareIn(root);
    assert.equal([rebuilt.status, builds(root)], [0, 2], rebuilt.stderr);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
