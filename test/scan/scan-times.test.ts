// The recent scan times /healthz reads: a window of 30 s on a clock the test moves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentScanTimes, SCAN_TIMES_WINDOW_MS } from '../../src/scan/scan-times.js';

function clocked() {
  const clock = { now: 0 };
  return { clock, times: new RecentScanTimes({ now: () => clock.now }) };
}

test('no scan yet: zeros', () => {
  assert.equal(clocked().times.recent(), { p50: 0, p90: 0, max: 0, count: 0, markupLimit: 0 });
});

test('p50, p90 and max are the nearest-rank quantiles of the scans in the window, with those over budget counted', () => {
  const { times } = clocked();
  for (let ms = 1; ms <= 10; ms++) times.record(ms, ms >= 9);
  assert.equal(times.recent(), { p50: 5, p90: 9, max: 10, count: 10, markupLimit: 2 });
});

test('scans older than the window are forgotten', () => {
  const { clock, times } = clocked();
  times.record(40, true);
  clock.now = 10_000;
  times.record(2, false);
  clock.now = SCAN_TIMES_WINDOW_MS;
  assert.equal(times.recent(), { p50: 2, p90: 2, max: 2, count: 1, markupLimit: 0 });
  clock.now = SCAN_TIMES_WINDOW_MS + 10_000;
  assert.equal(times.recent(), { p50: 0, p90: 0, max: 0, count: 0, markupLimit: 0 });
});

test('at most maxSamples scans are kept, the oldest dropped first', () => {
  const clock = { now: 0 };
  const times = new RecentScanTimes({ now: () => clock.now, maxSamples: 100 });
  for (let i = 0; i < 1000; i++) times.record(i, false);
  const recent = times.recent();
  assert.equal([recent.count, recent.max, recent.p50], [100, 999, 949]);
});

test('a long run of scans through the window keeps only the window', () => {
  const { clock, times } = clocked();
  for (let i = 0; i < 10_000; i++) {
    clock.now = i * 100;
    times.record(i % 7, false);
  }
  assert.is(times.recent().count, SCAN_TIMES_WINDOW_MS / 100);
});

test.run();
