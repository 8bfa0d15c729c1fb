// Whether dist/ was built from the sources as they are now, so that `prepare` (which npm runs on
// `npm ci`, `npm install` and `npm pack`) does not spend minutes rebuilding what is built: the
// stamp dist/.build-stamp is written by the last step of `npm run build`, and dist/ is current
// when no input of the build (the files below, at any depth) was changed after it. An input
// changed or a build never finished: it is built again.
//   node scripts/build-stamp.mjs write    (the end of `npm run build`)

import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STAMP = path.join(root, 'dist', '.build-stamp');

/** What `npm run build` reads: a change to any of these makes dist/ stale. */
const INPUTS = [
  'src',
  'element',
  'wasm-parser',
  'generated',
  'openapi.yaml',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.server.json',
  'scripts/bundle-main.mjs',
  'scripts/openapi-json.mjs',
  // the installed packages the build copies or bundles (swagger-ui-dist, vite's output)
  'node_modules/.package-lock.json',
];

function newestChange(file) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestChange(path.join(file, entry)));
  return newest;
}

/** True when dist/ holds a finished build no input is newer than. */
export function buildIsCurrent() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return false;
  }
  return INPUTS.every((input) => newestChange(path.join(root, input)) <= built);
}

if (process.argv[2] === 'write') writeFileSync(STAMP, `built ${new Date().toISOString()}\n`);
