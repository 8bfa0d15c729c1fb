// Upstream fetch slots, shared fairly across clients (fairness/fair-queue.ts), with a cap per
// destination as a second net. A slot is held from the first connect until the body is read to the
// end or closed, since that is how long the upstream connection is in use; the name is resolved
// before the slot is asked for (lookups.ts), so a name that never answers holds none.
//
// Waiting rather than refusing at once, because one client address is often many people (an
// office, a mobile carrier's NAT, a page showing twenty previews), and such a burst should be
// served a little later, not answered 503; the rate limit and each fetch's deadline bound the wait.

import type { ClientLedger } from '../fairness/client-ledger.js';
import { FairQueue, type Charge, type Release } from '../fairness/fair-queue.js';

export type { Release };

/** Who a fetch is charged to: its client's key (null: the service's own) and its destination's. */
export type FetchCharge = Charge;

export interface LimiterOptions {
  /** Slots of the instance (MAX_CONCURRENT_FETCHES). */
  maxActive: number;
  /** Fetches that may wait (FETCH_QUEUE_MAX); past it, the heaviest client's are refused first. */
  maxQueued: number;
  /** Upper bound of one client's share (MAX_FETCHES_PER_CLIENT); 0: the share alone. */
  perClient: number;
  /** Slots one destination may hold at once (MAX_FETCHES_PER_HOST); 0: no cap. */
  perHost: number;
  now?: () => number;
  costs?: ClientLedger;
}

export class FetchLimiter extends FairQueue {
  constructor(opts: LimiterOptions) {
    super({ ...opts, unit: 'fetch' });
  }
}
