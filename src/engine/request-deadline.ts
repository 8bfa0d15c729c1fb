// One deadline over one extraction: the fetch (queue, DNS, connect, headers, body), the head scan
// (its wait for a scan thread included), and the enrichment after it (REQUEST_DEADLINE_MS). Each
// stage that waits keeps its own bound (FETCH_TIMEOUT_MS, ENRICH_BUDGET_MS); this one bounds their
// sum and what lies between them. Passed during the fetch or the scan, the answer is the fetch
// timeout's 422 (`timeout`: the page did not answer in time); during the enrichment, the answer
// goes out with what the enrichers set by then, as at the end of their own budget.

import { FetchTimeout } from '../errors.js';

export class RequestDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly endsAt: number;

  constructor(readonly deadlineMs: number) {
    this.endsAt = performance.now() + deadlineMs;
    // The error is made when the deadline passes, not for every extraction (its stack costs).
    this.timer = setTimeout(() => this.controller.abort(new FetchTimeout(`request deadline of ${deadlineMs} ms passed`, { deadlineMs })), deadlineMs);
    // A forgotten extraction must not keep the process alive.
    this.timer.unref();
  }

  /** Aborts when the deadline passes: the fetch's own signal (SafeFetchOptions.signal). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get passed(): boolean {
    return this.controller.signal.aborted;
  }

  /** Milliseconds left, at least 0. */
  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  /** The error a stage failed with, or the deadline's own FetchTimeout when it had passed by then. */
  explain(err: unknown): unknown {
    return this.passed ? (this.controller.signal.reason as FetchTimeout) : err;
  }

  /** Stops the timer (the extraction is over). */
  clear(): void {
    clearTimeout(this.timer);
  }
}
