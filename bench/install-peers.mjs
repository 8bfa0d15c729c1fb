// Installs bench/'s own package (the peers LinkPeek is measured against and autocannon) when it
// is missing or differs from bench/package-lock.json. They live outside the root install so that
// `npm ci` for the service stays small and builds nothing natively (metascraper pulls in re2, a
// C++ addon). Run by the npm scripts of the benchmarks that need them; a no-op once installed.
//   node bench/install-peers.mjs

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const lock = JSON.parse(readFileSync(path.join(benchDir, 'package-lock.json'), 'utf8'));

/** The locked packages whose installed version is not the locked one (or that are absent). */
function outOfDate() {
  return Object.entries(lock.packages)
    .filter(([where, entry]) => where.startsWith('node_modules/') && !entry.optional)
    .filter(([where, entry]) => {
      try {
        return JSON.parse(readFileSync(path.join(benchDir, where, 'package.json'), 'utf8')).version !== entry.version;
      } catch {
        return true;
      }
    })
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

const stale = outOfDate();
if (stale.length > 0) {
  console.error(
    `bench: installing the benchmark peers into bench/node_modules (${stale.length} packages missing or changed, e.g. ${stale.slice(0, 3).join(', ')})`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: benchDir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`bench: npm ci in bench/ failed (exit ${result.status ?? result.signal}); re2, a dependency of metascraper, needs python3, make and g++`);
    process.exit(1);
  }
}
