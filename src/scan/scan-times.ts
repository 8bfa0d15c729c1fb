// The page scans of the last 10 seconds, for /healthz: how long they took (the scan and the rules,
// with any wait for a scan thread, as the pipeline sees them) and how many stopped at the markup
// bounds (a head of more tags than any real page). 10 s, so that /healthz says ok again soon after
// heavy pages stop. The clock is injected; tests drive it.

import { RecentSamples } from '../recent-samples.js';

export interface ScanTimeSummary {
  /** Milliseconds; 0 when no scan ended in the window. */
  p50: number;
  p90: number;
  max: number;
  count: number;
  /** Scans that stopped at a markup bound and answered from the tags found by then. */
  markupLimit: number;
}

export interface RecentScanTimesOptions {
  /** Milliseconds, monotonic; performance.now by default. */
  now?: () => number;
  /** How far back recent() looks. */
  windowMs?: number;
  /** Scans kept at most (the oldest go first): a bound on memory under any load. */
  maxSamples?: number;
}

export const SCAN_TIMES_WINDOW_MS = 10_000;

export class RecentScanTimes {
  private readonly samples: RecentSamples;

  constructor(options: RecentScanTimesOptions = {}) {
    this.samples = new RecentSamples({
      windowMs: options.windowMs ?? SCAN_TIMES_WINDOW_MS,
      maxSamples: options.maxSamples ?? 4096,
      now: options.now,
    });
  }

  /** One scan's time in milliseconds, and whether it stopped at a markup bound. */
  record(ms: number, markupLimit: boolean): void {
    this.samples.record(ms, markupLimit);
  }

  /** The scans that ended within the window. */
  recent(): ScanTimeSummary {
    const { p50, p90, max, count, marked } = this.samples.summary();
    return { p50, p90, max, count, markupLimit: marked };
  }
}
