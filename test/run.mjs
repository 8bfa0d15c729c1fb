// Runs every test/**/*.test.ts with uvu (through tsx), one process per file, and ends with the
// line CI reads: "N passed, N failed" (uvu 0.5 prints Total/Passed/Skipped only).
// One process per file keeps suites from sharing state (servers, timers, Redis clients), and a
// file that hangs is named and killed at FILE_TIMEOUT_MS instead of stalling the whole run (one
// that has printed its summary but does not exit, EXIT_GRACE_MS after the summary).
// Usage: node test/run.mjs [path-prefix]   e.g. node test/run.mjs fetch/
// TEST_EXCLUDE: comma-separated path prefixes of files left out (CI's Node 24 run leaves out the
// files whose code under test does not run on Node), said in the output.
// In CI (CI=true) a skipped test is a failure: nothing may be quietly left out.
// Before the summary, the slowest files with their wall-clock time (TEST_SLOWEST, 12 by default).
// First it provides what the chosen files need (provision.mjs): Debian's chromium for the
// element's tests, curl for the README's commands (docs/), and a Redis of the run's own on a free
// port (its URL in TEST_REDIS_URL, unless that is already set) for the files that use one.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { provisionSystemPackages, startRedis } from './provision.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testDir = path.join(root, 'test');
const filter = process.argv[2] ?? '';
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 180_000);
/** A file that printed its summary has nothing left to run: past this it is held open by handles. */
const EXIT_GRACE_MS = Number(process.env.TEST_EXIT_GRACE_MS ?? 10_000);

const excluded = (process.env.TEST_EXCLUDE ?? '').split(',').filter(Boolean);
const files = readdirSync(testDir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts') && f.startsWith(filter) && !excluded.some((prefix) => f.startsWith(prefix)))
  .sort();
if (excluded.length > 0) console.log(`left out (TEST_EXCLUDE): ${excluded.join(', ')}`);

const usesRedis = files.some((f) => /testRedis|startRedis|startCluster|startSentinels/.test(readFileSync(path.join(testDir, f), 'utf8')));
const wanted = [
  ...(files.some((f) => f.startsWith('element/')) ? ['chromium'] : []),
  ...(files.some((f) => f.startsWith('docs/')) ? ['curl'] : []),
  ...(files.some((f) => f.startsWith('docs/fleet')) ? ['haproxy'] : []),
  ...(usesRedis && !process.env.TEST_REDIS_URL ? ['redis-server'] : []),
];
const unprovided = provisionSystemPackages(wanted);
if (unprovided) {
  console.error(unprovided);
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}
const redis = wanted.includes('redis-server') ? await startRedis() : null;
const testEnv = { ...process.env, FORCE_COLOR: '0', ...(redis ? { TEST_REDIS_URL: redis.url } : {}) };
// Interrupted, the run's Redis goes with it (process.exit runs the 'exit' hook that stops it).
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

// Files that measure time (deadlines, rate-limit windows, shutdown grace, DNS timeouts, a log
// line's delay, the browser's layout shifts, lazy loads, a slow answer, and a reader's pace through
// 30 cards against the rate limit's real window: beside other files it missed its 30 s) run alone; the rest of
// ops/ (the compiled build, prepare, metrics, start-up failures' exit codes) measures none;
// the rest run two at a time (the machines have 2 cores), which keeps CI's two full runs well
// inside its time limit.
const TIMING_SENSITIVE =
  /^(api\/overload|ops\/(dead-resolver|dns-health|instances|logs|npm-start|redis-stall|shutdown)|element\/(layout-shift|lazy-load|render-url|proxied-images)|api\/rate-limit|api\/fetch-shares|store\/redis-stall|store\/redis-sentinel|store\/outage|metadata\/attacks|fetch\/limits|proxy\/streaming)/;
const PARALLEL = Number(process.env.TEST_PARALLEL ?? 2);

let passed = 0;
let failed = 0;
let skipped = 0;
const troubled = [];
/** [file, ms] of every file run, for the slowest-files list. */
const durations = [];
const runStarted = performance.now();

function record(file, result) {
  passed += result.passed;
  failed += result.failed;
  skipped += result.skipped;
  if (result.failed > 0 || result.problem) troubled.push(`${file}${result.problem ? ` (${result.problem})` : ''}`);
}

const shared = files.filter((f) => !TIMING_SENSITIVE.test(f));
const alone = files.filter((f) => TIMING_SENSITIVE.test(f));
let next = 0;
await Promise.all(
  Array.from({ length: Math.max(1, PARALLEL) }, async () => {
    while (next < shared.length) {
      const file = shared[next++];
      record(file, await runFile(file));
    }
  }),
);
for (const file of alone) record(file, await runFile(file));

if (files.length === 0) {
  console.log(`no test files match "${filter}"`);
  failed++;
}
const slowest = durations.sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TEST_SLOWEST ?? 12));
if (slowest.length > 1) {
  const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
  console.log(
    `\nslowest files (wall clock; ${seconds(performance.now() - runStarted).trim()} in all, ${PARALLEL} at a time outside the timing-sensitive ones):`,
  );
  for (const [file, ms] of slowest) console.log(`${seconds(ms)}  ${file}`);
}
if (troubled.length > 0) console.log(`\nfiles with failures:\n  ${troubled.join('\n  ')}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
await redis?.stop();
if (process.env.CI && skipped > 0) {
  console.error(`${skipped} test(s) skipped in CI: every test must run`);
  process.exit(1);
}
process.exit(failed === 0 ? 0 : 1);

function runFile(file) {
  const pattern = `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'node_modules/uvu/bin.js'), 'test', pattern, '-c', 'false'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: testEnv,
    });
    // Each file's output is printed in one piece when it ends, so parallel files do not interleave.
    let out = '';
    let timedOut = null;
    const kill = (why) => () => {
      timedOut = why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(kill(`killed after ${FILE_TIMEOUT_MS} ms: open handles or a hang`), FILE_TIMEOUT_MS);
    let exitTimer;
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      if (exitTimer === undefined && /^\s*Duration:/m.test(out)) {
        exitTimer = setTimeout(kill(`still running ${EXIT_GRACE_MS} ms after its summary: open handles`), EXIT_GRACE_MS);
      }
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(exitTimer);
      durations.push([file, performance.now() - started]);
      process.stdout.write(`\n# ${file}\n${out}`);
      const read = (label) => {
        const m = new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(out);
        return m ? Number(m[1]) : NaN;
      };
      const total = read('Total');
      const ok = read('Passed');
      const skip = read('Skipped') || 0;
      if (timedOut) return resolve({ passed: ok || 0, failed: Math.max(1, (total || 0) - (ok || 0) - skip), skipped: skip, problem: timedOut });
      if (!Number.isFinite(total) || !Number.isFinite(ok))
        return resolve({ passed: 0, failed: 1, skipped: 0, problem: `no summary (exit ${code}, signal ${signal})` });
      const bad = total - ok - skip;
      resolve({ passed: ok, failed: bad > 0 ? bad : code === 0 ? 0 : 1, skipped: skip, problem: bad === 0 && code !== 0 ? `exit ${code}` : undefined });
    });
  });
}
