// A cap on upstream fetches in flight per instance, with a bounded queue in front of it (issue 4:
// "past it a clear error, not a pile-up"). A slot is held from the first connect until the body
// is read to the end or closed, since that is how long the upstream connection is in use.

import { Overloaded } from '../errors.js';

export type Release = () => void;

export class FetchLimiter {
  private active = 0;
  private readonly waiting: Array<{ grant: (release: Release) => void }> = [];

  constructor(
    private readonly maxActive: number,
    private readonly maxWaiting: number,
  ) {}

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with a release function once a slot is free. Throws Overloaded at once when every
   * slot is taken and the queue is full. If `signal` aborts while waiting, rejects with its
   * reason and leaves the queue.
   */
  acquire(signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.maxActive) return Promise.resolve(this.take());
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new Overloaded());
    return new Promise<Release>((resolve, reject) => {
      const entry = {
        grant: (release: Release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i !== -1) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private take(): Release {
    this.active++;
    let released = false;
    return () => {
      if (released) return; // idempotent: body end, close() and the deadline may all release
      released = true;
      this.active--;
      const next = this.waiting.shift();
      if (next) next.grant(this.take());
    };
  }
}
