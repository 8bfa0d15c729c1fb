import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentSamples } from '../src/recent-samples.js';

// The samples behind /healthz's waits and scan times: a window on a clock the test drives, a bound
// on how many are kept, percentiles of what is left.

test('percentiles, the maximum and the marked count of the samples in the window', () => {
  const samples = new RecentSamples({ windowMs: 1000, maxSamples: 100, now: () => 0 });
  assert.equal(samples.summary(), { p50: 0, p90: 0, max: 0, count: 0, marked: 0 });
  for (let v = 1; v <= 10; v++) samples.record(v, v > 8);
  assert.equal(samples.summary(), { p50: 5, p90: 9, max: 10, count: 10, marked: 2 });
});

test('a sample leaves the window when it is as old as the window', () => {
  let now = 0;
  const samples = new RecentSamples({ windowMs: 1000, maxSamples: 100, now: () => now });
  samples.record(50, true);
  now = 999;
  samples.record(7);
  assert.equal(samples.summary(), { p50: 7, p90: 50, max: 50, count: 2, marked: 1 });
  now = 1000;
  assert.equal(samples.summary(), { p50: 7, p90: 7, max: 7, count: 1, marked: 0 });
});

test('a flood of samples keeps the newest maxSamples, however long it lasts', () => {
  let now = 0;
  const samples = new RecentSamples({ windowMs: 60_000, maxSamples: 1000, now: () => now });
  for (let i = 0; i < 200_000; i++) {
    now += 0.01;
    samples.record(i);
  }
  const { count, max, p50 } = samples.summary();
  assert.equal([count, max, p50], [1000, 199_999, 199_499]);
});

test.run();
