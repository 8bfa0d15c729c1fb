// What each client's recent requests cost the instance beyond the slots they hold: CPU time of
// their pages (the head scan), charged after the fact by whoever measured it, and, past capacity,
// how often it asks (admitted or refused, by the shedder or the rate limit:
// fairness/load-shedder.ts notes each ask). The fair schedulers (fairness/fair-queue.ts) count both
// as slots held, so a client whose pages are costly, or who asks far more than others, gets fewer
// slots and is served after the others, until it decays away. Asks count refused pages too: a
// client refused for a while still asks as often, and must not come back lighter than a bystander
// who asks a page now and then.
//
// Recent, not total: a cost halves every COST_HALF_LIFE_MS (asks every ASK_HALF_LIFE_MS), so a client that stops sending costly pages
// is an ordinary client again within a minute, and a cost from last hour weighs nothing. A client
// that began asking a moment ago has had no time to gather the count its pace will reach: its asks
// are read against the history it has (askHistory), or an attack's 128 fresh addresses would weigh
// less in their first second than a bystander with a page in flight, and the bystander would be
// refused first.

/** A charge halves in this time (on the injected clock). */
export const COST_HALF_LIFE_MS = 10_000;

/**
 * CPU milliseconds that weigh as much as one slot held. A page whose scan stays within its budget
 * costs a few ms: a client sending one every second stays under one slot. A client whose every
 * page costs 50 ms, two a second, settles near 100 ms × 14.4 s (the mean life of a charge) ≈ 1.4 s
 * of recent CPU, about 29 slots: its share shrinks to the one slot every client keeps.
 */
export const CPU_MS_PER_SLOT = 50;

/**
 * Asks halve in this time: they measure how often a client asks now, so that within a second or two
 * of an attack's start its clients weigh more than a bystander who has asked a page every 2 s for
 * minutes (with the CPU's half-life, the bystander's long history outweighed the newcomers').
 */
export const ASK_HALF_LIFE_MS = 2_000;

/**
 * Pages asked lately that weigh as much as one slot held. A client asking a page every 2 s settles
 * near 1.4 asks (0.7 slot); one asking two a second (the rate limit's pace), near 5.8 (2.9 slots).
 */
export const ASKS_PER_SLOT = 2;

/**
 * The least history an ask count is read as (askHistory): one shed interval (load-shedder.ts), the
 * time between two rankings. One ask in it weighs as 6.3, about what a client asking at the rate
 * limit's pace settles at (5.8).
 */
export const YOUNGEST_MS = 500;

/** Clients remembered at most (the least recently charged are forgotten first). */
const MAX_CLIENTS = 10_000;

/** A decayed cost below these is forgotten: it no longer changes any decision. */
const NEGLIGIBLE_MS = 0.5;
const NEGLIGIBLE_ASKS = 0.05;

interface Cost {
  ms: number;
  /** Pages whose scan ended, decayed like `ms`. */
  pages: number;
  /** Pages asked, decayed like `ms`. */
  asks: number;
  at: number;
  /** When the client was first charged (since it was last forgotten). */
  since: number;
}

export class ClientLedger {
  private readonly costs = new Map<string, Cost>();

  constructor(private readonly now: () => number) {}

  /** Adds `cpuMs` milliseconds of CPU to the client with key `client`, and `pages` whole pages ended with it. */
  charge(client: string, cpuMs: number, pages = 0): void {
    if (!(cpuMs > 0) && !(pages > 0)) return;
    this.add(client, Math.max(0, cpuMs), pages, 0);
  }

  /** Notes that the client with key `client` asked for a page (admitted or not). */
  ask(client: string): void {
    this.add(client, 0, 0, 1);
  }

  /**
   * The client's recent cost in slots held (CPU_MS_PER_SLOT ms and ASKS_PER_SLOT asks each),
   * fractional, at `now` (a caller weighing many clients at once reads the clock once).
   */
  slots(client: string, now = this.now()): number {
    const cost = this.costs.get(client);
    if (cost === undefined) return 0;
    const kept = this.kept(client, now);
    return kept === 0 ? 0 : (kept * cost.ms) / CPU_MS_PER_SLOT + (this.keptAsks(cost, now) * cost.asks) / ASKS_PER_SLOT / this.askHistory(cost, now);
  }

  /** The client's recent CPU milliseconds, decayed to now. */
  decayed(client: string): number {
    return (this.costs.get(client)?.ms ?? 0) * this.kept(client);
  }

  /**
   * The client's recent CPU milliseconds per page: what one of its pages costs to scan. A scan
   * that has not ended counts as a page only once it has (a client whose scans never end is as
   * costly as all they cost so far).
   */
  perPage(client: string): number {
    const kept = this.kept(client);
    const cost = this.costs.get(client);
    return cost === undefined ? 0 : (cost.ms * kept) / Math.max(1, cost.pages * kept);
  }

  /**
   * The share of the client's charges left now (both its CPU and its pages decay by it); 0 for a
   * client with none, and a cost decayed below NEGLIGIBLE_MS is forgotten.
   */
  private kept(client: string, now = this.now()): number {
    const cost = this.costs.get(client);
    if (cost === undefined) return 0;
    const kept = 2 ** (-(now - cost.at) / COST_HALF_LIFE_MS);
    if (cost.ms * kept < NEGLIGIBLE_MS && cost.asks * this.keptAsks(cost, now) < NEGLIGIBLE_ASKS) {
      this.costs.delete(client);
      return 0;
    }
    return kept;
  }

  /** The clients with a recent cost (some may have decayed to nothing since). */
  clients(): IterableIterator<string> {
    return this.costs.keys();
  }

  get size(): number {
    return this.costs.size;
  }

  /**
   * How much of a steady asker's count a client of this age has had time to gather: asks decay from
   * the client's first, so a client that began asking a second ago counts a fraction of what it
   * will count at the same pace, and would weigh less than a bystander who has asked a page every
   * 2 s for minutes (as an average started at zero is corrected for its start). At least
   * YOUNGEST_MS of history is assumed: one ask is never taken for a burst.
   */
  private askHistory(cost: Cost, now: number): number {
    return 1 - 2 ** (-Math.max(YOUNGEST_MS, now - cost.since) / ASK_HALF_LIFE_MS);
  }

  /** The share of a cost's asks left now. */
  private keptAsks(cost: Cost, now = this.now()): number {
    return 2 ** (-(now - cost.at) / ASK_HALF_LIFE_MS);
  }

  private add(client: string, cpuMs: number, pages: number, asks: number): void {
    const kept = this.kept(client);
    const before = this.costs.get(client);
    this.costs.delete(client); // re-inserted last: Map order is then least recently charged first
    this.costs.set(client, {
      ms: (before?.ms ?? 0) * kept + cpuMs,
      pages: (before?.pages ?? 0) * kept + pages,
      asks: before === undefined ? asks : before.asks * this.keptAsks(before) + asks,
      at: this.now(),
      since: before?.since ?? this.now(),
    });
    if (this.costs.size > MAX_CLIENTS) this.forgetOldest();
  }

  private forgetOldest(): void {
    for (const client of this.costs.keys()) {
      this.costs.delete(client);
      if (this.costs.size <= MAX_CLIENTS) return;
    }
  }
}
