// Runs every test/**/*.test.ts with uvu (through tsx) and ends with the line CI reads: "N passed,
// N failed" (uvu 0.5 prints Total/Passed/Skipped only).
// Files share a process with others of their folder, at most BATCH_FILES of them, run one after
// the other by uvu: loading the service's modules costs a process more CPU than most files' tests
// (metadata/'s 21 files took 57 s of CPU in a process each, 12 s in one). No test file changes
// process-wide state (the environment, undici's global dispatcher, process handlers), and each
// closes what it starts. A batch that hangs is killed at FILE_TIMEOUT_MS; one that has printed its
// summary but does not exit, EXIT_GRACE_MS after it (open handles). A batch that ends without a
// summary (a file that throws as it loads, a hang, open handles) is run again a file at a time, so
// that the file is named. The timing-sensitive files (below) have a process each.
// Usage: node test/run.mjs [path-prefix]   e.g. node test/run.mjs fetch/
// TEST_EXCLUDE: comma-separated path prefixes of files left out (CI's Node 24 run leaves out the
// files whose code under test does not run on Node), said in the output.
// In CI (CI=true) a skipped test is a failure: nothing may be quietly left out.
// Before the summary, the slowest batches with their wall-clock time (TEST_SLOWEST, 12 by default).
// Service processes run the build in dist/ when it is current, the sources otherwise (below).
// First it provides what the chosen files need (provision.mjs): Debian's chromium-headless-shell
// and chromium for the element's tests, curl for the README's commands (docs/), and a Redis of the run's own on a free
// port (its URL in TEST_REDIS_URL, unless that is already set) for the files that use one.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { buildIsCurrent } from '../scripts/build-stamp.mjs';
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
  ...(files.some((f) => f.startsWith('element/')) ? ['chromium-headless-shell', 'chromium'] : []),
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
// The tests' service processes (helpers/process.ts) run the build `npm start` runs when dist/ was
// built from the sources as they are (a start costs 0.8 s of CPU, against 3.3 s from the sources
// through tsx), the sources otherwise. Decided once, so that a run is all one or the other.
const serviceEntry = process.env.TEST_SERVICE_ENTRY ?? (buildIsCurrent() ? 'compiled' : 'source');
console.log(
  serviceEntry === 'compiled'
    ? 'service processes: the build in dist/ (current with the sources)'
    : 'service processes: the sources through tsx (dist/ is older than them, or TEST_SERVICE_ENTRY says so; npm run build makes it current)',
);
const testEnv = { ...process.env, FORCE_COLOR: '0', TEST_SERVICE_ENTRY: serviceEntry, ...(redis ? { TEST_REDIS_URL: redis.url } : {}) };
// Interrupted, the run's Redis goes with it (process.exit runs the 'exit' hook that stops it), and
// so do the test processes (those of a session of their own hear no terminal's ^C).
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Gives the scheduling group (Linux autogroup) of the session `pid` leads the nice value `nice`. */
function lowerGroup(pid, nice) {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // No autogroups here (another kernel, or turned off): the process's own nice value holds.
  }
}

// Files that measure time (deadlines, rate-limit windows, shutdown grace, DNS timeouts, a log
// line's delay, the browser's layout shifts, lazy loads, a slow answer, a reader's pace through 30
// cards against the rate limit's real window, the egress budget's pace, /healthz reading `ok`
// under a light load, which a starved process's own late event loop makes `degraded`) have a
// process each,
// ALONE_PARALLEL at a time: they mostly wait (a third to a half of a core each, ops/shutdown and
// ops/instances a core or more), so two of them leave each other the CPU they need, where beside
// the other files at the same priority some missed their marks. The rest of ops/ (the compiled
// build, prepare, metrics, start-up failures' exit codes) measures none. The other files run
// PARALLEL processes at a time (the machines have 2 cores; 3 or 4 made that part no shorter).
// Both kinds run at once, the other files at a low priority (LOW_NICE, below), so that they take
// the CPU the timing-sensitive files leave and never what those need. A browser cannot be given a
// low priority (it starts a session, and so a scheduling group, of its own), so the timing-
// sensitive files start once the other files of element/ have ended.
const TIMING_SENSITIVE =
  /^(api\/overload|ops\/(dead-resolver|dns-health|health-metrics|instances|logs|npm-start|redis-stall|shutdown)|element\/(layout-shift|lazy-load|render-url|proxied-images)|api\/rate-limit|api\/fetch-shares|store\/redis-stall|store\/redis-sentinel|store\/outage|metadata\/(attacks|bad-input)|fetch\/limits|proxy\/(streaming|byte-share))/;
const PARALLEL = Number(process.env.TEST_PARALLEL ?? 2);
/**
 * The other files' priority while timing-sensitive ones run: each such process starts a session
 * of its own (with Linux's autogroups, a scheduling group of its own) whose nice value this is, so
 * it gets about a quarter of a core that a timing-sensitive file wants too, and all of a core that
 * none does. Not less: at nice 10 (a tenth) a service inside such a process, starved while two
 * timing-sensitive files were busy, saw its own event loop 200 ms late and its Redis writes miss
 * their deadline (ops/metrics failed in 2 runs of ops/ of 4; at nice 5, none of 4). Its children (services, npm) inherit it. Where there are no autogroups, the
 * process's own nice value does the same against processes of the same group.
 */
const LOW_NICE = 5;
const ALONE_PARALLEL = Number(process.env.TEST_ALONE_PARALLEL ?? 2);

/** Files of one folder that share a process (see the top of this file). */
const BATCH_FILES = Number(process.env.TEST_BATCH_FILES ?? 8);

let passed = 0;
let failed = 0;
let skipped = 0;
const troubled = [];
/** [what ran, ms] of every process, for the slowest list. */
const durations = [];
const runStarted = performance.now();

function record(result) {
  passed += result.passed;
  failed += result.failed;
  skipped += result.skipped;
  troubled.push(...result.troubled);
}

/** A run of `files` in one process; one that ended without its summary, again a file at a time. */
async function runBatch(files, options) {
  const result = await runFiles(files, options);
  if (files.length > 1 && result.problem) {
    console.log(`\n# ${files.length} files ended together without their summary (${result.problem}): again, one at a time`);
    for (const file of files) record(await runFiles([file], options));
    return;
  }
  record(result);
}

const shared = files.filter((f) => !TIMING_SENSITIVE.test(f));
const alone = files.filter((f) => TIMING_SENSITIVE.test(f));
/**
 * Folders whose files take seconds each (a browser, npm, tsc or Vite): their batches start first,
 * so that the last ones to end are short.
 */
const SLOW_FOLDERS = new Set(['element', 'engine', 'client', 'docs']);
/** The shared files by folder, cut into batches of at most BATCH_FILES, the slow folders' and the largest first. */
const folders = new Map();
for (const file of shared) {
  const folder = file.includes(path.sep) ? file.slice(0, file.indexOf(path.sep)) : '.';
  folders.set(folder, [...(folders.get(folder) ?? []), file]);
}
const slow = (batch) => SLOW_FOLDERS.has(path.dirname(batch[0]));
/** Batches whose tests start a browser, which keeps the priority it was given by no one. */
const browsers = (batch) => path.dirname(batch[0]) === 'element';
const weight = (batch) => batch.length * (slow(batch) ? 4 : 1);
const batches = [...folders.values()]
  .flatMap((group) => {
    // A slow folder's files half as many at a time: the last batch to end is then a short one.
    const count = Math.ceil(group.length / Math.max(1, slow(group) ? Math.ceil(BATCH_FILES / 2) : BATCH_FILES));
    return Array.from({ length: count }, (_, i) => group.filter((_, j) => j % count === i));
  })
  // The browsers' batches first (the timing-sensitive files wait for them), then by weight.
  .sort((a, b) => Number(browsers(b)) - Number(browsers(a)) || weight(b) - weight(a));
let next = 0;
let browsersLeft = batches.filter(browsers).length;
let browsersEnded;
const noBrowsersLeft = new Promise((resolve) => (browsersEnded = resolve));
if (browsersLeft === 0) browsersEnded();
const sharedDone = Promise.all(
  Array.from({ length: Math.max(1, PARALLEL) }, async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      await runBatch(batch, { nice: browsers(batch) ? 0 : LOW_NICE });
      if (browsers(batch) && --browsersLeft === 0) browsersEnded();
    }
  }),
).then(() => performance.now() - runStarted);
let nextAlone = 0;
const aloneDone = noBrowsersLeft.then(async () => {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.max(1, ALONE_PARALLEL) }, async () => {
      while (nextAlone < alone.length) record(await runFiles([alone[nextAlone++]]));
    }),
  );
  return [started - runStarted, performance.now() - started];
});
const [sharedMs, [aloneStartMs, aloneMs]] = await Promise.all([sharedDone, aloneDone]);

if (files.length === 0) {
  console.log(`no test files match "${filter}"`);
  failed++;
}
const slowest = durations.sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TEST_SLOWEST ?? 12));
if (slowest.length > 1) {
  const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
  console.log(
    `\nslowest processes (wall clock; ${seconds(performance.now() - runStarted).trim()} in all: the files ${PARALLEL} processes at a time ended at ` +
      `${seconds(sharedMs).trim()}; the timing-sensitive ones, ${ALONE_PARALLEL} at a time, ran from ${seconds(aloneStartMs).trim()} for ${seconds(aloneMs).trim()}):`,
  );
  for (const [what, ms] of slowest) console.log(`${seconds(ms)}  ${what}`);
}
if (troubled.length > 0) console.log(`\nfiles with failures:\n  ${troubled.join('\n  ')}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
await redis?.stop();
if (process.env.CI && skipped > 0) {
  console.error(`${skipped} test(s) skipped in CI: every test must run`);
  process.exit(1);
}
process.exit(failed === 0 ? 0 : 1);

/**
 * Runs `files` in one uvu process: their counts, the files with a failed test (uvu prints each
 * file's path before its tests, a ✘ for each failure), and what went wrong with the process.
 */
function runFiles(files, { nice = 0 } = {}) {
  const escape = (file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = `^(${files.map(escape).join('|')})$`;
  const label = files.length === 1 ? files[0] : `${files.length} files of ${path.dirname(files[0])}/`;
  const started = performance.now();
  return new Promise((resolve) => {
    const uvu = [process.execPath, '--import', 'tsx', path.join(root, 'node_modules/uvu/bin.js'), 'test', pattern, '-c', 'false'];
    const [command, ...args] = nice ? ['nice', '-n', String(nice), ...uvu] : uvu;
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: testEnv, detached: nice > 0 });
    if (nice) lowerGroup(child.pid, nice);
    running.add(child);
    child.on('exit', () => running.delete(child));
    // The output is printed in one piece when the process ends, so parallel ones do not interleave.
    let out = '';
    let timedOut = null;
    const kill = (why) => () => {
      timedOut = why;
      child.kill('SIGKILL');
    };
    // Each file has FILE_TIMEOUT_MS from the moment uvu starts it (its path printed on a line of
    // its own); a ✘ after it is a failure of that file. Complete lines are read once, as they come.
    const armTimer = (file) => setTimeout(kill(`${file}: killed after ${FILE_TIMEOUT_MS} ms: open handles or a hang`), FILE_TIMEOUT_MS);
    let timer = armTimer(files[0]);
    let exitTimer;
    let current = null;
    const failing = [];
    let readUpTo = 0;
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const end = out.lastIndexOf('\n') + 1;
      for (const line of out.slice(readUpTo, end).split('\n')) {
        if (files.includes(line.trim())) {
          current = line.trim();
          clearTimeout(timer);
          timer = armTimer(current);
        } else if (current !== null && line.includes('✘') && !failing.includes(current)) failing.push(current);
        else if (exitTimer === undefined && /^\s*Duration:/.test(line)) {
          exitTimer = setTimeout(kill(`still running ${EXIT_GRACE_MS} ms after its summary: open handles`), EXIT_GRACE_MS);
        }
      }
      readUpTo = Math.max(readUpTo, end);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(exitTimer);
      durations.push([label, performance.now() - started]);
      process.stdout.write(`\n# ${label}\n${out}`);
      const read = (name) => {
        const m = new RegExp(`^\\s*${name}:\\s+(\\d+)`, 'm').exec(out);
        return m ? Number(m[1]) : NaN;
      };
      const total = read('Total');
      const ok = read('Passed');
      const skip = read('Skipped') || 0;
      const problem = timedOut ?? (!Number.isFinite(total) || !Number.isFinite(ok) ? `no summary (exit ${code}, signal ${signal})` : undefined);
      if (problem) {
        return resolve({ passed: ok || 0, failed: Math.max(1, (total || 0) - (ok || 0) - skip), skipped: skip, problem, troubled: [`${label} (${problem})`] });
      }
      const bad = total - ok - skip;
      const exitProblem = bad === 0 && code !== 0 ? `exit ${code}` : undefined;
      resolve({
        passed: ok,
        failed: bad > 0 ? bad : code === 0 ? 0 : 1,
        skipped: skip,
        problem: exitProblem,
        troubled: exitProblem ? [`${label} (${exitProblem})`] : failing.length > 0 ? failing : bad > 0 ? [label] : [],
      });
    });
  });
}
