// Slots of one shared resource (upstream fetches, name lookups) handed out fairly across clients,
// so that no handful of clients can slow or starve the rest (fq_codel's flow queues; Envoy's
// overload manager). Every client (its IPv4 address or IPv6 /64, client-key.ts) has its own FIFO
// queue; the service's own work is one more client.
//
// - Who goes next: among the clients whose first waiter may take a slot, the one using least,
//   counted as slots held plus its recent CPU cost in slots (fairness/client-ledger.ts); ties go to the client
//   served longest ago (round-robin). A client with nothing in flight and no recent cost is
//   always first. This is fair queuing by usage rather than deficit round-robin: DRR charges
//   each grant its size when it is dequeued, but a slot's cost (how long a page drips) is only
//   known when it is released, so what a client holds now, plus what its pages cost lately, is the
//   measure of its share.
// - How much one client may hold: its share, max(1, floor(slots / (clients + 1))), where clients
//   are those holding or waiting (a lone client: all slots), within the per-client upper bound.
//   The +1 keeps one share free for a client that has not come yet, so a bystander finds a slot
//   at once while attackers are fewer than the slots; past that, it goes first at the next
//   release. A client with nothing in flight may always take one, however costly lately.
// - Each destination holds at most its own cap, a second net: wildcard DNS gives an attacker any
//   number of registrable domains, so the per-client share is what bounds an attacker.
// - Queues are bounded, and a full one refuses the client using most (queue-admission.ts).
// - Waits may be bounded too (maxWaitMs, past capacity only: the service's scan queue): a waiter
//   that has waited that long when a slot is next handed out is refused instead, if its client is
//   one the load shedder refuses now (CoDel drops at the queue's head what stood too long, from the
//   fattest flows). They learn it in time to retry, instead of being served seconds late; a light
//   client is never refused this way, however long a burst of newcomers made it wait.

import { Overloaded } from '../errors.js';
import { ClientLedger } from './client-ledger.js';
import { ClientQueues, type Charge, type ClientState, type Release, type Waiter } from './client-queues.js';
import { admissionRefusal } from './queue-admission.js';
import { WaitWindow, type WaitStats } from './wait-window.js';

export type { Charge, Release };

export interface FairQueueOptions {
  /** Slots of the instance. */
  maxActive: number;
  /** Waiters of the instance at most; past it, the heaviest client's are refused first. */
  maxQueued: number;
  /** Upper bound of one client's share; 0: the share alone. */
  perClient: number;
  /** Slots one destination may hold at once; 0: no cap. */
  perHost: number;
  /** What a slot is, in refusal messages: 'fetch', 'lookup' or 'scan'. */
  unit: 'fetch' | 'lookup' | 'scan';
  /** The clock (ms); tests drive it. */
  now?: () => number;
  /** Recent CPU cost per client, shared by the schedulers of one instance. */
  costs?: ClientLedger;
  /**
   * A waiter that has waited this long (ms) is refused (Overloaded) when a slot is next handed out,
   * if `refusesStale` says so of its client; 0 or absent: no bound.
   */
  maxWaitMs?: number;
  /** Whether a stale waiter of the client with this key is refused (the load shedder's verdict); absent: every client's is. */
  refusesStale?: (client: string) => boolean;
}

/** `saturated` holds this long after the last moment a waiter its caps allow found no free slot. */
const SATURATION_HOLD_MS = 5000;
/** The key of the service's own work. Client keys are addresses or prefixes, never empty. */
const SERVICE = '';

export class FairQueue {
  private active = 0;
  private grants = 0;
  private readonly queues = new ClientQueues();
  private lastSaturatedAt = -Infinity;
  /** The least standing delay seen at a grant (oldestWaiting) since takeLeastWait last asked. */
  private leastWait = Infinity;
  private readonly now: () => number;
  private readonly waits: WaitWindow;
  readonly costs: ClientLedger;

  constructor(private readonly opts: FairQueueOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.costs = opts.costs ?? new ClientLedger(this.now);
    this.waits = new WaitWindow(this.now);
  }

  get maxActive(): number {
    return this.opts.maxActive;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Waiters that their client's share and destination cap allow: they wait for a free slot. */
  get queued(): number {
    return this.queues.countWaiting((w) => this.allowed(w.client, w.host));
  }

  /** Waiters held back by their client's share or their destination's cap. */
  get capped(): number {
    return this.queues.waitingCount - this.queued;
  }

  /** Clients with at least one waiter. */
  get waitingClients(): number {
    return this.queues.waitingClients;
  }

  /**
   * True while every slot is taken and a waiter its caps allow waits, and for SATURATION_HOLD_MS
   * after (a sampled /healthz should not miss a saturation that comes and goes between polls).
   */
  get saturated(): boolean {
    return this.now() - this.lastSaturatedAt < SATURATION_HOLD_MS || (this.active >= this.opts.maxActive && this.queued > 0);
  }

  /** Slots held by the client with key `client` (null: the service's own). */
  heldBy(client: string | null): number {
    return this.queues.clients.get(client ?? SERVICE)?.held ?? 0;
  }

  /**
   * Waits over the last 10 s (acquire to grant, 0 when granted at once) of grants that their
   * client's share allowed when they asked: what a fair client waits. A client waiting on its own
   * excess is the share working, and is not counted.
   */
  recentWait(): WaitStats {
    return this.waits.stats();
  }

  /**
   * The least standing delay (ms) seen at a grant since the last call, for the load shedder's
   * standing-queue test (fairness/load-shedder.ts): at each grant, how long the oldest waiter its
   * share allows has waited (the one granted included; 0 when nobody such waits). With no grant,
   * that age now; null when nobody such waited or was granted.
   *
   * The oldest waiter, not the one granted: the least-using client is served first, so its wait
   * stays short while the heaviest clients' waiters age for seconds, and the grants' own waits
   * would never show the queue standing. fq_codel runs CoDel per flow for the same reason.
   */
  takeLeastWait(): number | null {
    let least = this.leastWait;
    this.leastWait = Infinity;
    if (least === Infinity && this.queues.waitingCount > 0) least = this.oldestWaiting() ?? Infinity;
    return least === Infinity ? null : least;
  }

  /** How long the oldest waiter its share allows has waited (each client's first in its queue); null when none waits. */
  private oldestWaiting(): number | null {
    if (this.queues.waitingCount === 0) return null;
    let oldest = Infinity;
    for (const client of this.queues.clients.values()) {
      const first = client.waiting[0];
      if (first !== undefined && first.withinShare && first.askedAt < oldest) oldest = first.askedAt;
    }
    return oldest === Infinity ? null : this.now() - oldest;
  }

  /** Charges `cpuMs` of CPU (and `pages` pages it ended) to the client with key `client`: its share shrinks while the cost is recent. */
  chargeCpu(client: string, cpuMs: number, pages = 0): void {
    this.costs.charge(client, cpuMs, pages);
  }

  /**
   * Resolves with a release function once a slot is granted to `charge`. Throws Overloaded at once
   * when a queue it would join is full (and nobody heavier can be refused instead). If `signal`
   * aborts while waiting, rejects with its reason and leaves the queue.
   */
  acquire(signal: AbortSignal, charge: Charge = { client: null, host: '' }): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const client = this.queues.join(charge.client ?? SERVICE); // competes from now on: shares count it
    const { host } = charge;
    if (this.active < this.opts.maxActive && this.allowed(client, host)) return Promise.resolve(this.take(client, host, null));

    const withinShare = this.withinShare(client);
    if (withinShare && this.hostAllows(host)) this.lastSaturatedAt = this.now();
    const now = this.now(); // one clock reading for every client weighed
    const weight = (c: ClientState) => c.held + c.waiting.length + this.costs.slots(c.key, now);
    const refusal = admissionRefusal(this.queues, client, host, this.opts, weight, client.key !== SERVICE);
    if (refusal !== null) {
      this.queues.forgetIfIdle(client);
      return Promise.reject(new Overloaded(refusal));
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        this.queues.leave(waiter);
        this.queues.forgetIfIdle(client);
        reject(signal.reason);
        this.pump(); // a client gone from the competition widens the others' shares
      };
      const waiter: Waiter = {
        client,
        host,
        askedAt: this.now(),
        withinShare,
        grant: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        refuse: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queues.enqueue(waiter);
      this.pump(); // a client pushed out of the queue may have left the competition: shares widen
    });
  }

  /** A slot for `charge` if one can be granted at once, else null: for work worth doing only now. */
  tryAcquire(charge: Charge): Release | null {
    const client = this.queues.join(charge.client ?? SERVICE);
    if (this.active < this.opts.maxActive && this.allowed(client, charge.host)) return this.take(client, charge.host, null);
    this.queues.forgetIfIdle(client);
    return null;
  }

  /** The most slots `client` may hold now: its share of the instance, within the per-client bound. */
  private capOf(client: ClientState): number {
    const competing = this.queues.clients.size;
    const share = Math.max(1, Math.floor(this.opts.maxActive / (competing > 1 ? competing + 1 : 1)));
    return client.key === SERVICE || this.opts.perClient === 0 ? share : Math.min(this.opts.perClient, share);
  }

  /**
   * A share as large as the instance never binds: the slots themselves do. A client holding its
   * share is past it whatever its cost, which is only read otherwise (`now`: the clock reading of
   * a caller weighing every client).
   */
  private withinShare(client: ClientState, now?: number): boolean {
    if (client.held === 0) return true;
    const cap = this.capOf(client);
    return cap >= this.opts.maxActive || (client.held < cap && client.held + this.costs.slots(client.key, now) < cap);
  }

  private hostAllows(host: string): boolean {
    return this.opts.perHost === 0 || this.queues.heldAt(host) < this.opts.perHost;
  }

  /** Everything but a free slot allows `client` one more slot for `host`. */
  private allowed(client: ClientState, host: string): boolean {
    return this.hostAllows(host) && this.withinShare(client);
  }

  /** Grants a slot; `waiter` is the queue entry it waited as (null: granted at once). */
  private take(client: ClientState, host: string, waiter: Waiter | null): Release {
    this.active++;
    this.queues.hold(client, host, 1);
    client.servedAt = this.grants++;
    if (waiter === null || waiter.withinShare) {
      const waited = waiter === null ? 0 : this.now() - waiter.askedAt;
      this.waits.record(waited);
      // The standing delay is at least this grant's wait: the older waiters are looked for only when it could lower the least.
      if (waited < this.leastWait) this.leastWait = Math.max(waited, this.oldestWaiting() ?? 0);
    }
    let released = false;
    const release = () => {
      if (released) return; // idempotent: body end, close() and the deadline may all release
      released = true;
      this.active--;
      this.queues.hold(client, host, -1);
      this.queues.forgetIfIdle(client);
      this.pump();
    };
    return waiter === null ? release : Object.assign(release, { queued: true });
  }

  /** Grants free slots, each to the next waiter by the order above. */
  private pump(): void {
    if (this.queues.waitingCount === 0) return; // the usual case: nobody waits, nothing to choose
    if (this.opts.maxWaitMs) this.refuseStale(this.opts.maxWaitMs);
    for (;;) {
      if (this.active >= this.opts.maxActive) {
        if (this.next(true) !== null) this.lastSaturatedAt = this.now(); // a waiter its caps allow found no slot
        return;
      }
      const next = this.next();
      if (next === null) return;
      this.queues.leave(next);
      next.grant(this.take(next.client, next.host, next));
    }
  }

  /** Refuses every waiter that has waited `maxWaitMs` or more, of the clients refusesStale names: each client's oldest come first in its queue. */
  private refuseStale(maxWaitMs: number): void {
    const staleBefore = this.now() - maxWaitMs;
    const refuses = this.opts.refusesStale ?? (() => true);
    for (const client of [...this.queues.clients.values()]) {
      if (client.key === SERVICE || client.waiting.length === 0 || client.waiting[0]!.askedAt > staleBefore || !refuses(client.key)) continue;
      while (client.waiting.length > 0 && client.waiting[0]!.askedAt <= staleBefore) {
        const stale = client.waiting[0]!;
        this.queues.leave(stale);
        stale.refuse(new Overloaded(`waited ${maxWaitMs / 1000} s for a ${this.opts.unit} slot`));
      }
      this.queues.forgetIfIdle(client);
    }
  }

  /**
   * The waiter to serve next: the first allowed one of the least-using client, least recently
   * served first. `any`: the first allowed waiter found, to learn whether there is one. Every
   * release and every arrival asks, and a queue under attack holds hundreds of clients, most of
   * them at their share: the clock is read once, and only the others' costs.
   */
  private next(any = false): Waiter | null {
    let best: Waiter | null = null;
    let bestUse = Infinity;
    let bestServed = Infinity;
    const now = this.now();
    for (const client of this.queues.clients.values()) {
      if (client.waiting.length === 0 || !this.withinShare(client, now)) continue;
      const waiter = client.waiting.find((w) => this.hostAllows(w.host));
      if (waiter === undefined) continue;
      if (any) return waiter;
      const use = client.held + this.costs.slots(client.key, now);
      if (use < bestUse || (use === bestUse && client.servedAt < bestServed)) {
        best = waiter;
        bestUse = use;
        bestServed = client.servedAt;
      }
    }
    return best;
  }
}
