// Redis first, memory while Redis fails: an instance degrades to its own memory stores and says
// so in logs and /healthz; it never answers 500 because a store is down (docs/ARCHITECTURE.md).
// The rate limiter and the cache each have their own Failover on the one connection, so a cache
// that fails (a write refused, a slow read) never moves the limiter off the shared store while
// Redis answers the limiter's own commands (store/shared-stores.ts).
//
// An error Redis answered with that says "this write did not fit" (OOM, under a `maxmemory`) is
// not an outage: Redis is there and answering. That one operation is served by memory and
// nothing trips (`tripsOn`).
//
// "Fails" includes "stops answering": a Redis that accepts connections and never replies (a
// frozen process, a full network buffer, a stuck proxy) keeps ioredis's connection `ready`, so
// every operation runs under a deadline and one that overruns it trips the failover exactly as
// a refused connection does. Once tripped, operations go straight to memory, without trying Redis
// and waiting out the deadline again; only the background check (a PING under the same deadline,
// once a second) brings the instance back. The same check runs while Redis is healthy, so a Redis
// that goes silent is noticed, and /healthz says so, even when no request touches it.

export interface FailoverOptions {
  /** Longest one store operation may take before Redis counts as failed (REDIS_TIMEOUT_MS). */
  deadlineMs: number;
  /** One cheap round trip to Redis (PING); must reject when Redis cannot answer. */
  check: () => Promise<unknown>;
  /** How often the check runs, in ms. */
  checkIntervalMs?: number;
  onChange?: (degraded: boolean, err?: unknown) => void;
  /** Whether a failed operation means Redis failed; every error by default. */
  tripsOn?: (err: unknown) => boolean;
  /**
   * Another failover on the same connection whose trip counts here too: the cache follows the
   * rate limiter's (whose commands failing means Redis is gone for all), so a request does not
   * wait out one deadline for its rate limit and another for its cache; never the other way.
   */
  follows?: Failover;
}

/** Why a store operation was abandoned: Redis did not answer within the deadline. */
class StoreDeadline extends Error {
  constructor(readonly deadlineMs: number) {
    super(`redis did not answer within ${deadlineMs} ms`);
    this.name = 'StoreDeadline';
  }
}

const DEFAULT_CHECK_INTERVAL_MS = 1000;

export class Failover {
  private down = false;
  private checking = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: FailoverOptions) {
    this.timer = setInterval(() => void this.check(), opts.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Down itself, or following a failover that is. */
  get degraded(): boolean {
    return this.down || (this.opts.follows?.degraded ?? false);
  }

  async run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (this.degraded) return fallback();
    try {
      return await withDeadline(primary(), this.opts.deadlineMs);
    } catch (err) {
      if (this.opts.tripsOn?.(err) ?? true) this.trip(err);
      return fallback();
    }
  }

  /** The background check: trips on a failure or overrun, recovers on an answer in time. */
  async check(): Promise<void> {
    if (this.checking) return; // a check still waiting on its deadline is enough
    this.checking = true;
    try {
      await withDeadline(this.opts.check(), this.opts.deadlineMs);
      if (this.down) {
        this.down = false;
        this.opts.onChange?.(false);
      }
    } catch (err) {
      if (this.opts.tripsOn?.(err) ?? true) this.trip(err);
    } finally {
      this.checking = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private trip(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.opts.onChange?.(true, err);
  }
}

/**
 * `work`, or a StoreDeadline after `ms`; a late settlement of `work` is ignored. When the timer
 * fires, the verdict waits for the rest of that event-loop turn (setImmediate runs after the
 * poll phase): if our own loop was busy past the deadline, a reply already sitting in the socket
 * is read first, so a lagging instance does not take a prompt Redis for a silent one.
 */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new StoreDeadline(ms))), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
