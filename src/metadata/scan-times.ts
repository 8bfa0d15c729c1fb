// The head scans of the last 10 seconds, for /healthz: how long they took (the scanner's own time
// and the rules after it, as the metadata service reports it) and how many ran out of their budget
// (SCAN_BUDGET_MS). A few heavy pages are what slows every other request on the event loop, so
// their times are the evidence; 10 s, so that /healthz says ok again soon after they stop. The
// clock is injected; tests drive it.

export interface ScanTimeSummary {
  /** Milliseconds; 0 when no scan ended in the window. */
  p50: number;
  p90: number;
  max: number;
  count: number;
  /** Scans that stopped at their budget and answered from the tags found by then. */
  overBudget: number;
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
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly maxSamples: number;
  /** Parallel arrays, oldest first, from index `first` on. */
  private at: number[] = [];
  private ms: number[] = [];
  private over: boolean[] = [];
  private first = 0;

  constructor(options: RecentScanTimesOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.windowMs = options.windowMs ?? SCAN_TIMES_WINDOW_MS;
    this.maxSamples = options.maxSamples ?? 4096;
  }

  /** One scan's time in milliseconds, and whether it ran out of its budget. */
  record(ms: number, overBudget: boolean): void {
    const now = this.now();
    this.forgetOld(now);
    if (this.at.length - this.first >= this.maxSamples) this.first++;
    this.at.push(now);
    this.ms.push(ms);
    this.over.push(overBudget);
  }

  /** The scans that ended within the window. */
  recent(): ScanTimeSummary {
    this.forgetOld(this.now());
    const times = this.ms.slice(this.first).sort((a, b) => a - b);
    let overBudget = 0;
    for (let i = this.first; i < this.over.length; i++) if (this.over[i]) overBudget++;
    const rank = (q: number): number => (times.length === 0 ? 0 : times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!);
    return { p50: rank(0.5), p90: rank(0.9), max: times.at(-1) ?? 0, count: times.length, overBudget };
  }

  private forgetOld(now: number): void {
    while (this.first < this.at.length && this.at[this.first]! <= now - this.windowMs) this.first++;
    // Drops the forgotten front once it is most of the arrays, so each scan is copied once at most.
    if (this.first > 64 && this.first * 2 > this.at.length) {
      this.at = this.at.slice(this.first);
      this.ms = this.ms.slice(this.first);
      this.over = this.over.slice(this.first);
      this.first = 0;
    }
  }
}
