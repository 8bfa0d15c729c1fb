// Runs bench/lib/load.ts in its own process and returns its summary.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './corpus.js';
import type { LoadResult, LoadSpec } from './load.js';

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'bench/lib/load.ts'), JSON.stringify(spec)],
      { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`load generator failed: ${err.message}\n${stderr.slice(-2000)}`));
        const line = stdout.trim().split('\n').pop() ?? '';
        try {
          resolve(JSON.parse(line) as LoadResult);
        } catch {
          reject(new Error(`load generator printed no result: ${stdout.slice(-500)} ${stderr.slice(-500)}`));
        }
      },
    );
  });
}
