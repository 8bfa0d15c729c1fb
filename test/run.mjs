// Runs every test/**/*.test.ts with uvu (through tsx) and ends with the line CI reads:
// "N passed, N failed" (uvu prints Total/Passed/Skipped only; PITFALLS.md "uvu 0.5").
// Usage: node test/run.mjs [pattern]   e.g. node test/run.mjs fetch
// In CI (CI=true) a skipped test is a failure: nothing may be quietly left out.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv[2] ?? '';
const pattern = filter ? `${filter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*\\.test\\.ts$` : '\\.test\\.ts$';
const child = spawn(
  process.execPath,
  ['--import', 'tsx', path.join(root, 'node_modules/uvu/bin.js'), 'test', pattern, '-c', 'false'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FORCE_COLOR: '0' } },
);

let out = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  out += chunk.toString();
});

child.on('close', (code, signal) => {
  const read = (label) => {
    const m = new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(out);
    return m ? Number(m[1]) : NaN;
  };
  const total = read('Total');
  const passed = read('Passed');
  const skipped = read('Skipped');
  if (!Number.isFinite(total) || !Number.isFinite(passed)) {
    console.log(`0 passed, 1 failed`);
    console.error(`test runner ended without a summary (exit ${code}, signal ${signal})`);
    process.exit(1);
  }
  const failed = total - passed - (skipped || 0);
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  if (process.env.CI && skipped > 0) {
    console.error(`${skipped} test(s) skipped in CI: every test must run`);
    process.exit(1);
  }
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
