// The shapes and bookkeeping under fairness/fair-queue.ts: one FIFO queue per client, and counts of slots held and
// waiters per client and per destination. Only clients holding or awaiting a slot are kept, so the
// number of clients here is the number competing, and a map never outgrows the clients in use.

/** Frees the slot (idempotent). `queued` is true when the grant had to wait. */
export type Release = (() => void) & { readonly queued?: boolean };

/** Who a slot is charged to. */
export interface Charge {
  /** The client's key (client-key.ts); null for the service's own work, which no client cap holds. */
  client: string | null;
  /** The destination's key (charge.ts); '' when destinations are not capped. */
  host: string;
}

/** One acquire waiting for its slot. */
export interface Waiter {
  client: ClientState;
  host: string;
  askedAt: number;
  /** The client's share allowed it when it asked: its wait was for the instance, not its own excess. */
  withinShare: boolean;
  grant(release: Release): void;
  refuse(err: Error): void;
}

export interface ClientState {
  key: string;
  held: number;
  waiting: Waiter[];
  /** Grant sequence number of its last grant: round-robin among equals. */
  servedAt: number;
}

export class ClientQueues {
  readonly clients = new Map<string, ClientState>();
  waitingCount = 0;
  private readonly hostHeld = new Map<string, number>();
  private readonly hostWaiting = new Map<string, number>();

  /** The state of the client with `key`, competing from now on. */
  join(key: string): ClientState {
    let client = this.clients.get(key);
    if (client === undefined) {
      client = { key, held: 0, waiting: [], servedAt: -1 };
      this.clients.set(key, client);
    }
    return client;
  }

  get waitingClients(): number {
    let n = 0;
    for (const client of this.clients.values()) if (client.waiting.length > 0) n++;
    return n;
  }

  countWaiting(match: (waiter: Waiter) => boolean): number {
    let n = 0;
    for (const client of this.clients.values()) for (const w of client.waiting) if (match(w)) n++;
    return n;
  }

  heldAt(host: string): number {
    return this.hostHeld.get(host) ?? 0;
  }

  waitingFor(host: string): number {
    return this.hostWaiting.get(host) ?? 0;
  }

  /** Counts a slot taken (+1) or freed (-1) by `client` for `host`. */
  hold(client: ClientState, host: string, delta: 1 | -1): void {
    client.held += delta;
    bump(this.hostHeld, host, delta);
  }

  enqueue(waiter: Waiter): void {
    waiter.client.waiting.push(waiter);
    this.waitingCount++;
    bump(this.hostWaiting, waiter.host, 1);
  }

  /** Takes `waiter` out of its queue (a no-op when it is no longer there). */
  leave(waiter: Waiter): void {
    const i = waiter.client.waiting.indexOf(waiter);
    if (i === -1) return;
    waiter.client.waiting.splice(i, 1);
    this.waitingCount--;
    bump(this.hostWaiting, waiter.host, -1);
  }

  /** A client holding and awaiting nothing no longer competes. */
  forgetIfIdle(client: ClientState): void {
    if (client.held === 0 && client.waiting.length === 0 && this.clients.get(client.key) === client) this.clients.delete(client.key);
  }

  /**
   * Refuses (with `error()`) the newest waiter, for `host` or any when null, of the client other than
   * `asker` that `weight` rates heaviest, if it weighs more than `asker` would with one more waiter.
   * True when a place was made.
   */
  refuseHeaviest(asker: ClientState, host: string | null, weight: (client: ClientState) => number, error: () => Error): boolean {
    let found: { waiter: Waiter; weight: number } | null = null;
    for (const client of this.clients.values()) {
      if (client === asker) continue;
      const waiter = client.waiting.findLast((w) => host === null || w.host === host);
      if (waiter === undefined) continue;
      const w = weight(client);
      if (found === null || w > found.weight) found = { waiter, weight: w };
    }
    if (found === null || found.weight <= weight(asker) + 1) return false;
    this.leave(found.waiter);
    this.forgetIfIdle(found.waiter.client);
    found.waiter.refuse(error());
    return true;
  }
}

/** Adds `delta` to a count, deleting it at zero so that a map holds only keys in use. */
function bump(map: Map<string, number>, key: string, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}
