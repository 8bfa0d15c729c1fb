// The time one scan may take, and how it shares the event loop. lol-html's cost is set by what the
// bytes hold, not by how many there are: element callbacks (a crossing out of WebAssembly and a
// wrapper per matched element) make a head of tiny tags cost a hundred times a head of script
// text of the same size. So the budget is counted in time, the thing it bounds: the sum of the
// stretches spent decoding and writing into lol-html, both charset passes included. Waiting for
// the network does not count. Past the budget the scan stops and the page is answered from the
// tags found so far, as the byte cap already does (a partial answer, never an error: the tags are
// the page's own, and the head's metadata comes first in real pages).
//
// Which time: on a busy machine the wall clock runs several times faster than our CPU time (the
// process waits for a core), so a budget of wall time would cut ordinary pages short under load.
// The first half of the budget is counted on the wall clock, which costs nothing to read and never
// undercounts; past it each piece is counted in CPU time (process.cpuUsage, ~1 µs a call): a page
// that needs at most half the budget of CPU is never cut, however loaded the machine.
//
// The bytes go to lol-html in pieces sized so that one piece takes about a slice (SLICE_MS), from
// the cost per byte of the piece before; after a slice of work the scan yields to the event loop
// (setImmediate, after pending I/O), so other requests are answered between the pieces of a heavy
// page. The clock is injected: tests drive it.

/** Work between two yields to the event loop, and the time one piece is sized to take. */
export const SLICE_MS = 2;

/**
 * The largest piece written at once: at the most expensive bytes we could build (about 0.25 µs a
 * byte, bench/results/scan-budget.md) a piece this size stays within a couple of slices, even right
 * after a stretch of cheap bytes that let the pieces grow.
 */
export const MAX_PIECE = 64 * 1024;

/** The smallest piece: each write into lol-html has a fixed cost. */
export const MIN_PIECE = 1024;

export type Clock = () => number;

export interface ScanBudgetOptions {
  /** Milliseconds of scanning allowed; Infinity (the default) never stops the scan. */
  budgetMs?: number;
  /** Wall time in milliseconds, monotonic; performance.now by default. */
  clock?: Clock;
  /** CPU time of the process in milliseconds; process.cpuUsage by default. */
  cpuClock?: Clock;
}

function processCpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

export class ScanPacer {
  /** Time spent scanning so far (every pass), in the clock's milliseconds. */
  spentMs = 0;
  private readonly budgetMs: number;
  private readonly clock: Clock;
  private readonly cpuClock: Clock;
  private sinceYieldMs = 0;
  private piece = MAX_PIECE;
  private startedAt = 0;
  /** The CPU clock at the start of the piece, or NaN while the wall clock counts (the first half). */
  private cpuStartedAt = Number.NaN;

  constructor(options: ScanBudgetOptions = {}) {
    this.budgetMs = options.budgetMs ?? Infinity;
    this.clock = options.clock ?? (() => performance.now());
    this.cpuClock = options.cpuClock ?? processCpuMs;
  }

  /** True once the budget is spent: nothing more may be written. */
  get exhausted(): boolean {
    return this.spentMs >= this.budgetMs;
  }

  /** Bytes for the next write: about one slice of work at the cost per byte seen last. */
  get pieceSize(): number {
    return this.piece;
  }

  /** Starts timing a piece of work. */
  begin(): void {
    this.startedAt = this.clock();
    this.cpuStartedAt = this.spentMs * 2 >= this.budgetMs ? this.cpuClock() : Number.NaN;
  }

  /** Charges the piece of `bytes` begun last, and sizes the next piece from its cost. */
  charge(bytes: number): void {
    const ms = Math.max(0, this.clock() - this.startedAt);
    this.spentMs += Number.isNaN(this.cpuStartedAt) ? ms : Math.max(0, this.cpuClock() - this.cpuStartedAt);
    this.sinceYieldMs += ms;
    // A very short piece (the tail of a block) says little about the cost per byte.
    if (bytes >= MIN_PIECE || ms > SLICE_MS) {
      const fitting = ms <= 0 ? MAX_PIECE : Math.floor((bytes * SLICE_MS) / ms);
      // Grows at most twofold a piece, so a page that turns expensive pays for one piece at most.
      this.piece = Math.max(MIN_PIECE, Math.min(MAX_PIECE, fitting, this.piece * 2));
    }
  }

  /**
   * A promise to await before the next piece when a slice of work is done (the event loop's turn),
   * else null: the common short head never waits, and pays for no promise.
   */
  turn(): Promise<void> | null {
    if (this.sinceYieldMs < SLICE_MS) return null;
    this.sinceYieldMs = 0;
    return new Promise((resolve) => setImmediate(resolve));
  }
}
