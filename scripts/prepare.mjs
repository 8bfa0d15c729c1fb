// `prepare` (run by `npm ci` and `npm install` in this checkout): builds dist/ when the
// devDependencies are installed. A production install (`npm ci --omit=dev`) has no TypeScript or
// Vite, so it skips the build with one line instead of failing: dist/ must then come prebuilt
// (README "Deploying"), and when it is already there the line says so. A dist/ built from the
// sources as they are (build-stamp.mjs) is not built again: `npm pack` right after `npm ci` packs
// what is there instead of spending minutes rebuilding it.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

if (!existsSync(path.join(root, 'node_modules', 'typescript', 'package.json'))) {
  // The same file `npm start` runs (scripts/start.mjs).
  const prebuilt = existsSync(path.join(root, 'dist', 'server', 'src', 'main.js'));
  console.error(
    prebuilt
      ? 'linkpeek: devDependencies not installed: using the prebuilt dist/'
      : 'linkpeek: devDependencies not installed, dist/ not built (build with `npm ci && npm run build`, then `npm prune --omit=dev`)',
  );
  process.exit(0);
}
if (buildIsCurrent()) {
  console.error('linkpeek: dist/ is built from the current sources: not rebuilt (`npm run build` rebuilds it)');
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(build.status ?? 1);
