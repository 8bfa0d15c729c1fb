import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { degradedBy, HELD_BACK_FETCHES, LAGGING_P99_MS, SLOW_WAIT_P90_MS, type HealthReadings } from '../src/health-rules.js';

// When /healthz says degraded, and why: one reading at a time pushed past its rule's line, on an
// otherwise healthy instance; each rule holds just past its line and not at it.

const calm = { p50: 0, p90: 0, max: 0, count: 0 };
const healthy: HealthReadings = {
  shedding: false,
  redisDown: false,
  eventLoopP99Ms: 12,
  fetches: { saturated: false, capped: 0, wait: calm },
  lookups: { saturated: false, wait: calm },
  dnsDegraded: false,
  scans: { saturated: false, wait: calm },
};
const slow = (p90: number, count = 20) => ({ p50: 1, p90, max: p90 * 2, count });

test('a healthy instance is degraded by nothing', () => {
  assert.equal(degradedBy(healthy), []);
  assert.equal(degradedBy({ ...healthy, lookups: null, scans: null }), []);
});

test('each rule holds past its line, and only its own', () => {
  const cases: Array<[string, Partial<HealthReadings>, Partial<HealthReadings>]> = [
    ['shedding', { shedding: true }, {}],
    ['redis', { redisDown: true }, {}],
    ['event_loop', { eventLoopP99Ms: LAGGING_P99_MS + 1 }, { eventLoopP99Ms: LAGGING_P99_MS }],
    ['fetch_slots', { fetches: { ...healthy.fetches, saturated: true } }, {}],
    ['fetch_wait', { fetches: { ...healthy.fetches, wait: slow(SLOW_WAIT_P90_MS + 1) } }, { fetches: { ...healthy.fetches, wait: slow(SLOW_WAIT_P90_MS) } }],
    ['fetch_shares', { fetches: { ...healthy.fetches, capped: HELD_BACK_FETCHES } }, { fetches: { ...healthy.fetches, capped: HELD_BACK_FETCHES - 1 } }],
    ['lookups', { lookups: { saturated: true, wait: calm } }, {}],
    ['lookups', { lookups: { saturated: false, wait: slow(SLOW_WAIT_P90_MS + 1) } }, { lookups: { saturated: false, wait: slow(SLOW_WAIT_P90_MS) } }],
    ['dns', { dnsDegraded: true }, {}],
    ['scans', { scans: { saturated: false, wait: slow(SLOW_WAIT_P90_MS + 1) } }, { scans: { saturated: false, wait: slow(SLOW_WAIT_P90_MS) } }],
  ];
  for (const [rule, past, at] of cases) {
    assert.equal(degradedBy({ ...healthy, ...past }), [rule], `${rule} past its line`);
    assert.equal(degradedBy({ ...healthy, ...at }), [], `${rule} at its line`);
  }
});

test('a full scan pool whose waits are short (two pages at once, one thread) is not degraded; its slow waits are', () => {
  assert.equal(degradedBy({ ...healthy, scans: { saturated: true, wait: { p50: 0, p90: 30.6, max: 30.6, count: 2 } } }), []);
  assert.equal(degradedBy({ ...healthy, scans: { saturated: true, wait: slow(SLOW_WAIT_P90_MS) } }), []);
  assert.equal(degradedBy({ ...healthy, scans: { saturated: true, wait: slow(SLOW_WAIT_P90_MS + 1) } }), ['scans']);
});

test('slow waits count only over enough grants: two slow grants are not a trend', () => {
  assert.equal(degradedBy({ ...healthy, fetches: { ...healthy.fetches, wait: slow(5000, 4) } }), []);
  assert.equal(degradedBy({ ...healthy, fetches: { ...healthy.fetches, wait: slow(5000, 5) } }), ['fetch_wait']);
});

test('every rule that holds is named, in the order of the table', () => {
  const everything: HealthReadings = {
    shedding: true,
    redisDown: true,
    eventLoopP99Ms: 900,
    fetches: { saturated: true, capped: 500, wait: slow(900) },
    lookups: { saturated: true, wait: slow(900) },
    dnsDegraded: true,
    scans: { saturated: true, wait: slow(900) },
  };
  assert.equal(degradedBy(everything), ['shedding', 'redis', 'event_loop', 'fetch_slots', 'fetch_wait', 'fetch_shares', 'lookups', 'dns', 'scans']);
});

test.run();
