// Which scan goes on at the next turn of the event loop. A scan that has used up its slice
// (scan-pacer.ts) waits here; one waiter goes on per turn, after pending I/O, so other requests
// are answered between the pieces of heavy pages (with a setImmediate each, a thousand waiting
// scans would all run a slice in the same turn, and a request arriving meanwhile would wait for
// all of them).
//
// Who goes on: the scan of the client whose recent CPU cost is least (the same costs that shrink
// its fetch share); ties go to the client served longest ago, and within a client its oldest scan
// goes first (a client's scans finish one after another instead of all crawling). In arrival
// order, a bystander's scan would wait behind every slice of every heavy scan before it.
//
// How many at once: at most `maxActive` scans take turns (a scan becomes active at its first turn
// and stays so until it ends); the others wait without reading their bodies (the scan pulls its
// source only while it runs), so a flood of heavy pages is scanned a few at a time, each finishing,
// rather than a thousand at once, none finishing. While the bound is reached, a new scan waits
// before its first piece too (first()). A light client (recent cost at most `lightCost`, or at
// most half the cheapest active client's) is not held back by the bound: a bystander's scan never
// waits for a heavy one to end. Below the bound a scan's first piece runs at once: the
// uncontended path pays a comparison.

/** The recent cost of a client (any unit, larger is costlier); '' is the service's own work. */
export type ClientCost = (client: string) => number;

/** Schedules a callback after pending I/O: setImmediate, or a test's hand-driven queue. */
export type Schedule = (run: () => void) => void;

export interface ScanTurnsOptions {
  /** Scans taking turns at most (those past their first slice); Infinity: no bound. */
  maxActive?: number;
  /** The clients' recent costs; none: every client costs the same (arrival order). */
  cost?: ClientCost;
  /** A client whose recent cost is at most this is never held back by the bound (0 by default). */
  lightCost?: number;
  schedule?: Schedule;
  /**
   * Schedules a callback after a pause (setTimeout of 1 ms, a slice): the turn given while scans
   * are crowded and only costly clients wait, so that their scans take at most about half of the
   * event loop and the rest stays free for other requests.
   */
  pause?: Schedule;
}

interface Waiter {
  scan: ScanTicket;
  resume: () => void;
}

interface ClientTurns {
  key: string;
  /** Waiting scans, oldest scan first. */
  waiting: Waiter[];
  /** How many of them are active. */
  activeWaiting: number;
  servedAt: number;
}

/** One scan's place among the scans: its client, its age, and whether it is active. */
export interface ScanTicket {
  readonly client: string;
  readonly seq: number;
  active: boolean;
  ended: boolean;
  /** first() was asked. */
  begun: boolean;
}

export class ScanTurns {
  private readonly clients = new Map<string, ClientTurns>();
  private readonly activeClients = new Map<string, number>();
  /** Scans begun and not ended, by client. */
  private readonly begunBy = new Map<string, number>();
  private waitingCount = 0;
  private activeCount = 0;
  private seq = 0;
  private served = 0;
  private armed = false;
  private readonly maxActive: number;
  private readonly cost: ClientCost;
  private readonly lightCost: number;
  private readonly schedule: Schedule;
  private readonly pause: Schedule;

  constructor(options: ScanTurnsOptions = {}) {
    this.maxActive = options.maxActive ?? Infinity;
    this.cost = options.cost ?? (() => 0);
    this.lightCost = options.lightCost ?? 0;
    this.schedule = options.schedule ?? setImmediate;
    this.pause = options.pause ?? ((run) => setTimeout(run, 1));
  }

  /** Scans waiting for a turn. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Scans past their first slice and not ended. */
  get active(): number {
    return this.activeCount;
  }

  /** Whether scans are crowded: the bound is reached and scans wait for a turn. */
  get crowded(): boolean {
    return this.waitingCount > 0 && this.activeCount >= this.maxActive;
  }

  /** Scans of `client` begun (past first()) and not ended. */
  scansOf(client: string): number {
    return this.begunBy.get(client) ?? 0;
  }

  /** A ticket for a new scan of `client` (its key; '' for the service's own). No cost until it waits. */
  ticket(client: string): ScanTicket {
    return { client, seq: this.seq++, active: false, ended: false, begun: false };
  }

  /**
   * Before each piece that needs no turn: null (go on at once), but for a scan's first piece while
   * the bound is reached and its client is not far cheaper than the active ones' (then the turn to
   * wait for): a flood of heavy pages then waits before costing anything.
   */
  first(scan: ScanTicket, signal?: AbortSignal): Promise<void> | null {
    if (scan.begun) return null;
    scan.begun = true;
    count(this.begunBy, scan.client, +1);
    if (this.activeCount < this.maxActive || this.cost(scan.client) <= this.passBar()) return null;
    return this.turn(scan, signal);
  }

  /**
   * Resolves when it is `scan`'s turn to go on. If `signal` aborts first (the request's deadline),
   * leaves the queue and rejects with its reason: a scan held back by the bound reads nothing, and
   * would otherwise learn of its end only at its turn.
   */
  turn(scan: ScanTicket, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resume, reject) => {
      let client = this.clients.get(scan.client);
      if (client === undefined) {
        client = { key: scan.client, waiting: [], activeWaiting: 0, servedAt: -1 };
        this.clients.set(scan.client, client);
      }
      const { waiting } = client;
      // Usually the newest: pushed; an older scan coming back goes before the newer ones.
      let at = waiting.length;
      while (at > 0 && waiting[at - 1]!.scan.seq > scan.seq) at--;
      const waiter: Waiter = { scan, resume };
      waiting.splice(at, 0, waiter);
      if (scan.active) client.activeWaiting++;
      this.waitingCount++;
      if (signal !== undefined) {
        const onAbort = () => {
          this.leave(client, waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.resume = () => {
          signal.removeEventListener('abort', onAbort);
          resume();
        };
      }
      this.arm();
    });
  }

  /** `scan` is over (ended, stopped or failed): its place among the active goes to a waiter. Idempotent. */
  end(scan: ScanTicket): void {
    if (scan.ended) return;
    scan.ended = true;
    if (scan.begun) count(this.begunBy, scan.client, -1);
    if (!scan.active) return;
    scan.active = false;
    this.activeCount--;
    count(this.activeClients, scan.client, -1);
    this.arm();
  }

  private arm(): void {
    if (this.armed || this.waitingCount === 0) return;
    this.armed = true;
    // Crowded, and nobody light waits: the costly scans' next turn comes after a pause.
    if (this.crowded && !this.lightWaiting()) this.pause(this.letOneGo);
    else this.schedule(this.letOneGo);
  }

  /** Whether a waiting scan's client is light enough to pass the bound. */
  private lightWaiting(): boolean {
    const bar = this.passBar();
    for (const client of this.clients.values()) if (this.cost(client.key) <= bar) return true;
    return false;
  }

  private readonly letOneGo = (): void => {
    this.armed = false;
    const next = this.next();
    // Waiters held back by the bound wait for an active scan to end (end() looks again).
    if (next === null) return;
    this.go(next);
    this.arm();
  };

  /** The waiter to go on: the first of the least costly client that may go, served longest ago among equals. */
  private next(): Waiter | null {
    const full = this.activeCount >= this.maxActive;
    let best: ClientTurns | null = null;
    let bestCost = Infinity;
    const bar = full ? this.passBar() : Infinity;
    for (const client of this.clients.values()) {
      const cost = this.cost(client.key);
      if (client.activeWaiting === 0 && cost > bar) continue;
      if (best === null || cost < bestCost || (cost === bestCost && client.servedAt < best.servedAt)) {
        best = client;
        bestCost = cost;
      }
    }
    if (best === null) return null;
    // Past the bound, a client's active scan goes before its new ones (unless it is far cheaper: the first).
    const waiter = (bestCost > bar ? best.waiting.find((w) => w.scan.active) : undefined) ?? best.waiting[0]!;
    this.leave(best, waiter);
    best.servedAt = this.served++;
    return waiter;
  }

  private leave(client: ClientTurns, waiter: Waiter): void {
    const at = client.waiting.indexOf(waiter);
    if (at === -1) return;
    client.waiting.splice(at, 1);
    this.waitingCount--;
    if (waiter.scan.active) client.activeWaiting--;
    if (client.waiting.length === 0 && this.clients.get(client.key) === client) this.clients.delete(client.key);
  }

  private go(waiter: Waiter): void {
    const { scan } = waiter;
    if (!scan.active) {
      scan.active = true;
      this.activeCount++;
      count(this.activeClients, scan.client, +1);
    }
    waiter.resume();
  }

  /**
   * The cost at most which a client goes past the bound: `lightCost` (a newcomer to the active
   * ones would otherwise set the bar), or half the cheapest active client's, whichever is more.
   */
  private passBar(): number {
    let least = Infinity;
    for (const client of this.activeClients.keys()) least = Math.min(least, this.cost(client));
    return Math.max(this.lightCost, least / 2);
  }
}

/** Adds `by` to the count of `key`, forgetting a count that reaches zero. */
function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
