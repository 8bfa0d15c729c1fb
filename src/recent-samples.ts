// Samples of the last few seconds (how long grants waited for a slot, how long head scans took),
// for /healthz: each with the moment it was taken and a mark (a scan cut at its budget), bounded
// in number, summarised as percentiles when asked (a health poll, not every sample). The clock is
// injected; tests drive it.

export interface SampleSummary {
  /** 0 when no sample is in the window. */
  p50: number;
  p90: number;
  max: number;
  count: number;
  /** Samples recorded with a mark. */
  marked: number;
}

export interface RecentSamplesOptions {
  /** How far back a summary looks, in the clock's milliseconds. */
  windowMs: number;
  /** Samples kept at most (the oldest go first): a bound on memory under any load. */
  maxSamples: number;
  /** Milliseconds, monotonic; performance.now by default. */
  now?: () => number;
}

export class RecentSamples {
  private readonly now: () => number;
  /** Parallel arrays, oldest first, from index `first` on. */
  private at: number[] = [];
  private values: number[] = [];
  private marks: boolean[] = [];
  private first = 0;

  constructor(private readonly options: RecentSamplesOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  record(value: number, marked = false): void {
    const now = this.now();
    this.forgetOld(now);
    if (this.at.length - this.first >= this.options.maxSamples) this.first++;
    this.at.push(now);
    this.values.push(value);
    this.marks.push(marked);
  }

  /** The samples taken within the window. */
  summary(): SampleSummary {
    this.forgetOld(this.now());
    const sorted = this.values.slice(this.first).sort((a, b) => a - b);
    let marked = 0;
    for (let i = this.first; i < this.marks.length; i++) if (this.marks[i]) marked++;
    const rank = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
    return { p50: rank(0.5), p90: rank(0.9), max: sorted.at(-1) ?? 0, count: sorted.length, marked };
  }

  private forgetOld(now: number): void {
    while (this.first < this.at.length && this.at[this.first]! <= now - this.options.windowMs) this.first++;
    // Drops the forgotten front once it is most of the arrays: each sample is copied once at most,
    // where dropping one at a time would copy the whole window on every record once it is full.
    if (this.first > 64 && this.first * 2 > this.at.length) {
      this.at = this.at.slice(this.first);
      this.values = this.values.slice(this.first);
      this.marks = this.marks.slice(this.first);
      this.first = 0;
    }
  }
}
