// How long grants of a fair scheduler waited over the last 10 s: what /healthz reads to tell
// whether clients are being slowed. One sample per grant (recent-samples.ts), percentiles computed
// when asked (a health poll, not every grant).

import { RecentSamples } from '../recent-samples.js';

/** The window: long enough to span a poll interval, short enough that an attack's end shows soon. */
export const WAIT_WINDOW_MS = 10_000;

/** Grants remembered at most: a burst of grants costs bounded memory. */
const MAX_RECORDS = 20_000;

export interface WaitStats {
  /** Milliseconds from acquire to grant; a grant at once counts 0. */
  p50: number;
  p90: number;
  max: number;
  /** Grants in the window. */
  count: number;
}

export class WaitWindow {
  private readonly samples: RecentSamples;

  constructor(now: () => number) {
    this.samples = new RecentSamples({ windowMs: WAIT_WINDOW_MS, maxSamples: MAX_RECORDS, now });
  }

  record(waitedMs: number): void {
    this.samples.record(waitedMs);
  }

  stats(): WaitStats {
    const { p50, p90, max, count } = this.samples.summary();
    return { p50: round(p50), p90: round(p90), max: round(max), count };
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
