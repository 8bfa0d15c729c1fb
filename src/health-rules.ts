// When /healthz says `degraded`, as a table of rules over what the instance measured in its last
// seconds. Each rule names one shared resource; `degraded_by` lists the rules that hold, so an
// operator reads why at once. Two kinds of rule:
//   - clients are being slowed: the event loop runs late, fetches, lookups or scans that their
//     shares allowed wait long for a slot, every fetch or lookup slot is taken, nameservers do not
//     answer, Redis is down;
//   - the instance is past its capacity and refuses pages, the heaviest clients' first (shedding);
//   - the instance is defending itself: many fetches are held to their client's share. The fair
//     shares keep bystanders fast then, but someone is sending the costliest traffic it can, and
//     that is worth a look (and a load balancer may prefer another instance while it lasts).
// Every window behind these readings is at most 20 s long, so `ok` comes back within 30 s of an
// attack's end.

import type { WaitStats } from './fairness/wait-window.js';

export interface HealthReadings {
  /** Pages are being refused past capacity, or were within the last 10 s. */
  shedding: boolean;
  redisDown: boolean;
  eventLoopP99Ms: number;
  fetches: { saturated: boolean; capped: number; wait: WaitStats };
  lookups: { saturated: boolean; wait: WaitStats } | null;
  dnsDegraded: boolean;
  scans: { saturated: boolean; wait: WaitStats } | null;
}

export type DegradedBy = 'shedding' | 'redis' | 'event_loop' | 'fetch_slots' | 'fetch_wait' | 'fetch_shares' | 'lookups' | 'dns' | 'scans';

/** An event loop this late at the 99th percentile delays every answer, cached ones too. */
export const LAGGING_P99_MS = 200;
/** Fair clients' waits for a slot at the 90th percentile past this, over at least WAIT_MIN_GRANTS grants: clients are slowed. */
export const SLOW_WAIT_P90_MS = 100;
const WAIT_MIN_GRANTS = 5;
/** Fetches held back by their own client's share at once: beyond an office's burst of previews, a flood. */
export const HELD_BACK_FETCHES = 16;

const slowWaits = (wait: WaitStats) => wait.count >= WAIT_MIN_GRANTS && wait.p90 > SLOW_WAIT_P90_MS;

const RULES: ReadonlyArray<[DegradedBy, (r: HealthReadings) => boolean]> = [
  ['shedding', (r) => r.shedding],
  ['redis', (r) => r.redisDown],
  ['event_loop', (r) => r.eventLoopP99Ms > LAGGING_P99_MS],
  ['fetch_slots', (r) => r.fetches.saturated],
  ['fetch_wait', (r) => slowWaits(r.fetches.wait)],
  ['fetch_shares', (r) => r.fetches.capped >= HELD_BACK_FETCHES],
  ['lookups', (r) => r.lookups !== null && (r.lookups.saturated || slowWaits(r.lookups.wait))],
  ['dns', (r) => r.dnsDegraded],
  // A scan pool of one or two threads (SCAN_WORKERS: the cores but one) is full whenever two
  // clients' pages arrive together, and a page then waits a scan's few ms: that is the queue
  // working, and read as saturation it kept /healthz degraded for its 5 s hold under the lightest
  // load (two pages at once: 30 ms of wait, 5 s of degraded). Only slow waits say clients are
  // slowed; a pool that stops granting stands, and is shed (`shedding`).
  ['scans', (r) => r.scans !== null && slowWaits(r.scans.wait)],
];

/** The rules that hold, in the table's order; empty when the instance is healthy. */
export function degradedBy(readings: HealthReadings): DegradedBy[] {
  return RULES.filter(([, holds]) => holds(readings)).map(([name]) => name);
}
