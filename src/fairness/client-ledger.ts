// What each client's recent requests cost the instance beyond the slots they hold: CPU time of
// their pages (the head scan), charged after the fact by whoever measured it. The fair schedulers
// (fairness/fair-queue.ts) count it as slots held, so a client whose pages are costly gets fewer slots
// and is served after cheaper clients, until the cost decays away.
//
// Recent, not total: a cost halves every HALF_LIFE_MS, so a client that stops sending costly pages
// is an ordinary client again within a minute, and a cost from last hour weighs nothing.

/** A charge halves in this time (on the injected clock). */
export const COST_HALF_LIFE_MS = 10_000;

/**
 * CPU milliseconds that weigh as much as one slot held. A page whose scan stays within its budget
 * costs a few ms: a client sending one every second stays under one slot. A client whose every
 * page costs 50 ms, two a second, settles near 100 ms × 14.4 s (the mean life of a charge) ≈ 1.4 s
 * of recent CPU, about 29 slots: its share shrinks to the one slot every client keeps.
 */
export const CPU_MS_PER_SLOT = 50;

/** Clients remembered at most (the least recently charged are forgotten first). */
const MAX_CLIENTS = 10_000;

/** A decayed cost below this is forgotten: it no longer changes any decision. */
const NEGLIGIBLE_MS = 0.5;

interface Cost {
  ms: number;
  /** Pages whose scan ended, decayed like `ms`. */
  pages: number;
  at: number;
}

export class ClientLedger {
  private readonly costs = new Map<string, Cost>();

  constructor(private readonly now: () => number) {}

  /** Adds `cpuMs` milliseconds of CPU to the client with key `client`, and `pages` whole pages ended with it. */
  charge(client: string, cpuMs: number, pages = 0): void {
    if (!(cpuMs > 0) && !(pages > 0)) return;
    const kept = this.kept(client);
    const before = this.costs.get(client);
    this.costs.delete(client); // re-inserted last: Map order is then least recently charged first
    const ms = (before?.ms ?? 0) * kept + Math.max(0, cpuMs);
    this.costs.set(client, { ms, pages: (before?.pages ?? 0) * kept + pages, at: this.now() });
    if (this.costs.size > MAX_CLIENTS) this.forgetOldest();
  }

  /** The client's recent cost in slots held (CPU_MS_PER_SLOT ms each), fractional. */
  slots(client: string): number {
    return this.decayed(client) / CPU_MS_PER_SLOT;
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

  /** Pages of the client whose scan ended lately, decayed like the cost (0 for a client not seen lately). */
  pagesEnded(client: string): number {
    return (this.costs.get(client)?.pages ?? 0) * this.kept(client);
  }

  /**
   * The share of the client's charges left now (both its CPU and its pages decay by it); 0 for a
   * client with none, and a cost decayed below NEGLIGIBLE_MS is forgotten.
   */
  private kept(client: string): number {
    const cost = this.costs.get(client);
    if (cost === undefined) return 0;
    const kept = 2 ** (-(this.now() - cost.at) / COST_HALF_LIFE_MS);
    if (cost.ms * kept < NEGLIGIBLE_MS) {
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

  private forgetOldest(): void {
    for (const client of this.costs.keys()) {
      this.costs.delete(client);
      if (this.costs.size <= MAX_CLIENTS) return;
    }
  }
}
