// How long grants of a fair scheduler waited over the last 10 s: what /healthz reads to tell
// whether clients are being slowed. One record per grant, bounded in number (the oldest go first
// past MAX_RECORDS), percentiles computed when asked (a health poll, not every grant).

/** The window: long enough to span a poll interval, short enough that an attack's end shows soon. */
export const WAIT_WINDOW_MS = 10_000;

/** Grants remembered at most: a burst of grants costs bounded memory (16 bytes each). */
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
  private at: number[] = [];
  private waited: number[] = [];

  constructor(private readonly now: () => number) {}

  record(waitedMs: number): void {
    this.at.push(this.now());
    this.waited.push(waitedMs);
    if (this.at.length > MAX_RECORDS) this.drop(this.at.length - MAX_RECORDS);
  }

  stats(): WaitStats {
    const since = this.now() - WAIT_WINDOW_MS;
    let old = 0;
    while (old < this.at.length && this.at[old]! <= since) old++;
    this.drop(old);
    const sorted = [...this.waited].sort((a, b) => a - b);
    const at = (q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
    return { p50: round(at(0.5)), p90: round(at(0.9)), max: round(sorted.at(-1) ?? 0), count: sorted.length };
  }

  private drop(n: number): void {
    if (n <= 0) return;
    this.at = this.at.slice(n);
    this.waited = this.waited.slice(n);
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
