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
// the cost per byte of the piece before; after a slice of work the scan waits for a turn of the
// event loop (scan-turns.ts: one waiting scan goes on per turn, after pending I/O, the cheapest
// client's first), so other requests are answered between the pieces of heavy pages. A scan's
// first slice may be longer (FIRST_SLICE_MS). The clock is injected: tests drive it.

import { performance } from 'node:perf_hooks';
import { ScanTurns, type ScanTicket } from './scan-turns.js';

/** Work between two yields to the event loop, and the time one piece is sized to take. */
export const SLICE_MS = 1;

/**
 * The work before the first yield of a scan whose caller asks for it (ScanBudgetOptions.firstSliceMs:
 * the service does for a client whose pages are known to be cheap), so that an ordinary head is
 * scanned at one go even on a slow core. A yield keeps the scan's state and body chunks alive while
 * other requests allocate, and what outlives the young generation's collections is promoted and
 * collected only by a full one. A scan held back at its start (ScanTurns.first) yields after
 * SLICE_MS from the first; every scan does after its first yield.
 */
export const FIRST_SLICE_MS = 4;

/**
 * The largest piece written at once (the block splitter's largest block), which a head of cheap
 * bytes (script text) grows to: each write has a fixed cost, which smaller pieces pay more often
 * on long heads (bench/results/scan-budget.md). At the most expensive bytes we could
 * build (~0.21 µs a byte, bench/results/scan-budget.md) a piece this size takes ~14 ms: the longest
 * stretch, paid once when a page turns from cheap to expensive (the next piece is sized from it).
 */
export const MAX_PIECE = 64 * 1024;

/**
 * The smallest piece: each write into lol-html has a fixed cost, and a piece that took long because
 * the process lost its core or collected garbage would otherwise shrink the next ones for nothing.
 * At the most expensive bytes we could build this size takes under 1 ms (a slice): a heavy page
 * then holds the event loop no longer than a cached answer can wait.
 */
export const MIN_PIECE = 4 * 1024;

export type Clock = () => number;

/** The global `performance` is a lazy getter in Node 20; the bound method skips it on every reading. */
const wallMs: Clock = performance.now.bind(performance);

export interface ScanBudgetOptions {
  /** Milliseconds of scanning allowed; Infinity (the default) never stops the scan. */
  budgetMs?: number;
  /** Wall time in milliseconds, monotonic; performance.now by default. */
  clock?: Clock;
  /** CPU time of the process in milliseconds; process.cpuUsage by default. */
  cpuClock?: Clock;
  /**
   * Told the time charged since it was last told, before each turn of the event loop the scan
   * waits for and when it ends (ScanPacer.tell), so the client is charged while its scan runs, not
   * only once it ends: a flood of heavy pages whose scans wait for turns would otherwise cost its
   * sender nothing until they finish. Once per turn, not per piece: a short head is one call.
   */
  onCharge?: (ms: number) => void;
  /** The turns this scan waits for after each slice; one shared by every scan of the process by default. */
  turns?: ScanTurns;
  /** The key of the client the scan is for (its cost orders the turns); '' (the default): the service's own. */
  client?: string;
  /** Ends a wait for a turn (the request's deadline): the scan then fails with its reason. */
  signal?: AbortSignal;
  /** Work before the first yield, unless the scan is held back at its start (FIRST_SLICE_MS); SLICE_MS by default. */
  firstSliceMs?: number;
}

/** The turns of scans given none: every scan is the service's own, the oldest goes first. */
const sharedTurns = new ScanTurns();

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
  /** Work until the next yield: the first slice's until the scan first waits (for a turn, or held back at its start). */
  private sliceMs: number;
  /**
   * The first piece is the smallest: what a head's bytes cost is not known yet, and the first
   * piece runs at once, without waiting for a turn (at the costliest bytes 64 KiB take ~14 ms).
   */
  private piece = MIN_PIECE;
  private readonly onCharge: ((ms: number) => void) | null;
  /** Time charged and not yet told to onCharge. */
  private untold = 0;
  private startedAt = 0;
  /** The CPU clock at the start of the piece, or NaN while the wall clock counts (the first half). */
  private cpuStartedAt = Number.NaN;
  private readonly turns: ScanTurns;
  private readonly ticket: ScanTicket;
  private readonly signal: AbortSignal | undefined;

  constructor(options: ScanBudgetOptions = {}) {
    this.turns = options.turns ?? sharedTurns;
    this.ticket = this.turns.ticket(options.client ?? '');
    this.signal = options.signal;
    this.budgetMs = options.budgetMs ?? Infinity;
    this.clock = options.clock ?? wallMs;
    this.cpuClock = options.cpuClock ?? processCpuMs;
    this.onCharge = options.onCharge ?? null;
    this.sliceMs = options.firstSliceMs ?? SLICE_MS;
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
    const charged = Number.isNaN(this.cpuStartedAt) ? ms : Math.max(0, this.cpuClock() - this.cpuStartedAt);
    this.spentMs += charged;
    this.untold += charged;
    this.sinceYieldMs += ms;
    // A short piece (an early block of the head, the tail of a block) says little about the cost per byte.
    if (bytes >= MIN_PIECE) {
      const fitting = ms <= 0 ? MAX_PIECE : Math.floor((bytes * SLICE_MS) / ms);
      // Grows at most twofold a piece, so a page that turns expensive pays for one piece at most.
      this.piece = Math.max(MIN_PIECE, Math.min(MAX_PIECE, fitting, this.piece * 2));
    }
  }

  /**
   * A promise to await before the next piece when a slice of work is done (the event loop's turn),
   * or before the first while heavy scans fill their places (ScanTurns.first), else null: the
   * common short head never waits, and pays for no promise.
   */
  turn(): Promise<void> | null {
    if (this.sinceYieldMs < this.sliceMs) {
      const held = this.turns.first(this.ticket, this.signal);
      if (held !== null) this.sliceMs = SLICE_MS;
      return held;
    }
    this.sinceYieldMs = 0;
    this.sliceMs = SLICE_MS;
    this.tell();
    return this.turns.turn(this.ticket, this.signal);
  }

  /** The scan is over: its place among the scans taking turns is freed. Idempotent. */
  end(): void {
    this.turns.end(this.ticket);
  }

  /** Tells onCharge the time charged since it was last told; the scanner calls it when the scan ends. */
  tell(): void {
    const ms = this.untold;
    if (ms === 0 || this.onCharge === null) return;
    this.untold = 0;
    this.onCharge(ms);
  }
}
