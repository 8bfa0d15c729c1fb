// Name lookups, scheduled apart from fetch slots: a fetch resolves its host name before it asks
// for a fetch slot, so a name whose nameserver never answers holds no slot. Lookups have their own
// slots, shared fairly across clients by the same scheduler as fetches (fairness/fair-queue.ts), so a
// client naming hundreds of dead hosts waits on its own share and leaves lookups free for others.
// A name answered from the resolver's cache (or an IP literal) needs no slot. The connector
// still resolves, and checks the address, at connect time (connector.ts): it finds the answer
// cached, so the address checked is the address dialled.

import type { ClientLedger } from '../fairness/client-ledger.js';
import { FairQueue } from '../fairness/fair-queue.js';
import type { Resolver } from './resolver.js';
import { chargedClient } from './charge.js';

export interface LookupOptions {
  /** Lookups in flight (MAX_CONCURRENT_LOOKUPS), waiting (LOOKUP_QUEUE_MAX), per client (MAX_LOOKUPS_PER_CLIENT). */
  maxActive: number;
  maxQueued: number;
  perClient: number;
  now?: () => number;
  costs?: ClientLedger;
}

export class NameLookups {
  /** The lookup slots (for /healthz: recentWait(), waitingClients, saturated). */
  readonly scheduler: FairQueue;

  constructor(
    private readonly resolver: Resolver,
    opts: LookupOptions,
  ) {
    this.scheduler = new FairQueue({ ...opts, perHost: 0, unit: 'lookup' });
  }

  /**
   * Resolves `hostname` for the client with key `client` (null: the service's own) within its
   * share of lookups. Resolves with the milliseconds the lookup took, or null when it needed no
   * query; rejects with the resolver's DnsError, Overloaded, or the signal's reason.
   */
  async resolve(hostname: string, client: string | null, signal: AbortSignal): Promise<number | null> {
    if (this.resolver.answersAtOnce(hostname)) return null;
    const release = await this.scheduler.acquire(signal, { client, host: '' });
    const started = performance.now();
    try {
      await this.resolver.resolve(hostname);
      return performance.now() - started;
    } finally {
      release();
    }
  }

  /**
   * Resolves `hostname` ahead of need for the client at IP `ip` (a page's image host, while the head
   * downloads), only if the client's share has a lookup free now: a prefetch never waits, and a
   * client whose share is spent gets none.
   */
  prefetch(hostname: string, ip: string | undefined): void {
    if (this.resolver.answersAtOnce(hostname)) return;
    const release = this.scheduler.tryAcquire({ client: chargedClient(ip), host: '' });
    if (release === null) return;
    // A failure is remembered by the resolver; the probe that needs the name reports it.
    this.resolver.resolve(hostname).then(release, release);
  }
}
