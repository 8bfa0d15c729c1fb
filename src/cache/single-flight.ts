// One fetch per page at a time. In this process, requests for a page being extracted join that
// extraction (a map of promises). Across instances sharing a Redis store, the first to claim the
// page fetches it and the others wait for its result to land in the store; should that claim go
// away without a result (the instance failed to store, or died), a waiter fetches after all.
// A waiter looks in the store when the fetching instance says its fetch ended (a pub/sub notice,
// cache/extraction-store.ts), and otherwise only every CLAIM_RECHECK_MS, for a claim that expired
// with its instance or a notice lost with a connection: a few commands per page, not a poll.

import type { CacheOutcome } from '../metadata/service-types.js';
import type { Extraction, ExtractionStore } from './extraction-store.js';

/** How long a waiter goes without news before it looks at the claim and the store anyway. */
const CLAIM_RECHECK_MS = 2_000;

export class SingleFlight {
  private readonly inflight = new Map<string, Promise<Extraction>>();

  /** `claimTtlMs`: the longest one extraction can take; a claim older than that is let go. */
  constructor(
    private readonly store: ExtractionStore,
    private readonly claimTtlMs: number,
  ) {}

  /**
   * The extraction of `key`: joined if this process is already at it ('shared'), else run here by
   * `work` ('miss'), or taken from another instance that was at it (told by `onOtherInstance`).
   */
  run(key: string, work: () => Promise<Extraction>, onOtherInstance: () => void): { outcome: CacheOutcome; extraction: Promise<Extraction> } {
    const pending = this.inflight.get(key);
    if (pending) return { outcome: 'shared', extraction: pending };
    const extraction = this.claimAndRun(key, work, onOtherInstance).finally(() => this.inflight.delete(key));
    this.inflight.set(key, extraction);
    return { outcome: 'miss', extraction };
  }

  private async claimAndRun(key: string, work: () => Promise<Extraction>, onOtherInstance: () => void): Promise<Extraction> {
    if (!(await this.store.claim(key, this.claimTtlMs))) {
      const theirs = await this.awaitOtherInstance(key);
      if (theirs) {
        onOtherInstance();
        return theirs;
      }
    }
    try {
      return await work();
    } finally {
      await this.store.release(key);
    }
  }

  private async awaitOtherInstance(key: string): Promise<Extraction | undefined> {
    const deadline = Date.now() + this.claimTtlMs;
    while (Date.now() < deadline) {
      // Listening before looking: a fetch that ends between the look and the wait still wakes it.
      const ended = this.store.fetchEnded(key, Math.min(CLAIM_RECHECK_MS, Math.max(1, deadline - Date.now())));
      const done = await this.store.get(key);
      if (done) return done;
      if (!(await this.store.claimed(key))) return this.store.get(key);
      await ended;
    }
    return undefined;
  }
}
