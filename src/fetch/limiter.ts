// Upstream fetch slots, shared fairly (past them a clear error, not a pile-up; and no
// client or host may take them all). A slot is held from the first connect until the body is read
// to the end or closed, since that is how long the upstream connection is in use.
//
// Three caps hold at once: the instance's (MAX_CONCURRENT_FETCHES), the client's
// (MAX_FETCHES_PER_CLIENT) and the destination's (MAX_FETCHES_PER_HOST). A fetch its client or
// host cap holds back waits in that client's or host's own bounded queue, and takes no place in
// the instance's queue (FETCH_QUEUE_MAX), which only holds fetches their caps allow, waiting for a
// free slot. So a few clients with slow pages slow themselves down: they cannot fill the slots,
// nor the queue in front of them. Waiting rather than refusing at once, because one client address
// is often many people (an office, a mobile carrier's NAT, a page showing twenty previews), and
// such a burst should be served a little later, not answered 503; the rate limit and each fetch's
// deadline bound the wait.

import { Overloaded } from '../errors.js';

/** Frees the slot (idempotent). `queued` is true when the fetch had to wait for it. */
export type Release = (() => void) & { readonly queued?: boolean };

/** Who a fetch is charged to. */
export interface FetchCharge {
  /** The client's key (client-key.ts); null for the service's own fetches, which no client cap holds. */
  client: string | null;
  /** The destination's key (client-key.ts). */
  host: string;
}

export interface LimiterOptions {
  /** Slots of the instance. */
  maxActive: number;
  /** Fetches that may wait for a free slot with their own caps allowing them; past it, Overloaded. */
  maxQueued: number;
  /** Slots one client may hold at once; 0: no cap. */
  perClient: number;
  /** Slots one destination may hold at once; 0: no cap. */
  perHost: number;
}

/** A client's (or host's) own queue holds this many times its cap; past it, Overloaded. */
const OWN_QUEUE_FACTOR = 4;

/** /healthz keeps saying "saturated" this long after the last moment a fetch had to wait for a slot. */
const SATURATION_HOLD_MS = 5000;

interface Waiter {
  charge: FetchCharge;
  grant: (release: Release) => void;
}

export class FetchLimiter {
  private active = 0;
  private readonly activeBy = { client: new Map<string, number>(), host: new Map<string, number>() };
  private readonly waitingBy = { client: new Map<string, number>(), host: new Map<string, number>() };
  private readonly waiting: Waiter[] = [];
  private lastSaturatedAt = -Infinity;

  constructor(private readonly opts: LimiterOptions) {}

  get maxActive(): number {
    return this.opts.maxActive;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Fetches waiting for a free slot that their own caps allow. */
  get queued(): number {
    return this.waiting.filter((w) => this.withinCaps(w.charge)).length;
  }

  /** Fetches waiting because their client or host holds its full share. */
  get capped(): number {
    return this.waiting.length - this.queued;
  }

  /**
   * True while every slot is taken and a fetch waits for one, and for SATURATION_HOLD_MS after the
   * last moment that was so (or a fetch was refused for a full queue): a sampled /healthz should
   * not miss a saturation that comes and goes between two polls.
   */
  get saturated(): boolean {
    return performance.now() - this.lastSaturatedAt < SATURATION_HOLD_MS || (this.active >= this.opts.maxActive && this.queued > 0);
  }

  /**
   * Resolves with a release function once a slot is free for `charge`. Throws Overloaded at once
   * when the queue it would join is full. If `signal` aborts while waiting, rejects with its
   * reason and leaves the queue.
   */
  acquire(signal: AbortSignal, charge: FetchCharge = { client: null, host: '' }): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const allowed = this.withinCaps(charge);
    if (allowed && this.active < this.opts.maxActive) return Promise.resolve(this.take(charge));
    const full = allowed ? this.instanceQueueFull() : this.ownQueueFull(charge);
    if (full) return Promise.reject(new Overloaded(full));

    return new Promise<Release>((resolve, reject) => {
      const entry: Waiter = {
        charge,
        grant: (release: Release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i !== -1) this.leave(i);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
      this.count(this.waitingBy, charge, 1);
    });
  }

  private withinCaps({ client, host }: FetchCharge): boolean {
    const { perClient, perHost } = this.opts;
    if (perClient > 0 && client !== null && (this.activeBy.client.get(client) ?? 0) >= perClient) return false;
    if (perHost > 0 && (this.activeBy.host.get(host) ?? 0) >= perHost) return false;
    return true;
  }

  /** Why the instance's queue refuses one more, or null. Marks the instance saturated either way. */
  private instanceQueueFull(): string | null {
    this.lastSaturatedAt = performance.now();
    return this.queued >= this.opts.maxQueued ? 'every fetch slot taken and the queue full' : null;
  }

  /** Why the client's or host's own queue refuses one more, or null. */
  private ownQueueFull({ client, host }: FetchCharge): string | null {
    const { perClient, perHost } = this.opts;
    if (perClient > 0 && client !== null && (this.waitingBy.client.get(client) ?? 0) >= OWN_QUEUE_FACTOR * perClient) {
      return 'the client has its full share of fetches in flight and queued';
    }
    if (perHost > 0 && (this.waitingBy.host.get(host) ?? 0) >= OWN_QUEUE_FACTOR * perHost) {
      return 'the destination has its full share of fetches in flight and queued';
    }
    return null;
  }

  private take(charge: FetchCharge): Release {
    this.active++;
    this.count(this.activeBy, charge, 1);
    let released = false;
    return () => {
      if (released) return; // idempotent: body end, close() and the deadline may all release
      released = true;
      this.active--;
      this.count(this.activeBy, charge, -1);
      this.pump();
    };
  }

  /** Grants free slots to waiters in arrival order, skipping those their caps still hold back. */
  private pump(): void {
    let i = 0;
    while (i < this.waiting.length && this.active < this.opts.maxActive) {
      const entry = this.waiting[i]!;
      if (!this.withinCaps(entry.charge)) {
        i++;
        continue;
      }
      this.leave(i);
      entry.grant(Object.assign(this.take(entry.charge), { queued: true }));
    }
    // Slots ran out before the waiters their caps allow: the instance is still saturated.
    if (i < this.waiting.length && this.waiting.slice(i).some((w) => this.withinCaps(w.charge))) this.lastSaturatedAt = performance.now();
  }

  private leave(index: number): void {
    const [entry] = this.waiting.splice(index, 1);
    this.count(this.waitingBy, entry!.charge, -1);
  }

  private count(by: { client: Map<string, number>; host: Map<string, number> }, { client, host }: FetchCharge, delta: number): void {
    if (client !== null) bump(by.client, client, delta);
    bump(by.host, host, delta);
  }
}

/** Adds `delta` to a count, deleting it at zero so that a map holds only clients and hosts in use. */
function bump(map: Map<string, number>, key: string, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}
