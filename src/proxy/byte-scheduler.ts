// Proxied bytes are a shared resource: every chunk of a proxied image waits here for its turn
// before it is pushed towards the client, and the next chunk is not pulled from the upstream until
// then, so the upstream is read no faster than its bytes leave (backpressure through the body's
// stream to the upstream connection).
//
// Two rules:
// - The instance sends at most its budget of proxied bytes per second (a token bucket holding at
//   most `burstBytes`): copying bytes from one socket to another costs the event loop CPU per
//   byte, and at 100 MB/s it slowed metadata answers by seconds on a busy machine. The budget is
//   measured as it goes: the scheduler's own timers are the probe. One that fires more than
//   LAG_TARGET_MS late means the event loop (or the machine) is short of time, and the budget is
//   cut by a quarter (at most every CUT_EVERY_MS, down to a sixteenth of `bytesPerSecond`); on
//   time, it grows back by a sixteenth of `bytesPerSecond` every RAISE_EVERY_MS (additive
//   increase, multiplicative decrease, as TCP's congestion control does). Metadata answers come
//   first: the proxy is what yields.
// - Clients share that rate fairly, in bytes: start-time fair queuing (Goyal, Vin and Cheng, 1996)
//   over clients. Each chunk is tagged with the bytes its client has been granted so far in
//   virtual time (never behind the chunk being sent now), and the chunk with the smallest tag
//   goes next: a client with many streams gets the share of one client, a client whose chunks
//   are small gets as many bytes as one whose chunks are large, and a client that was idle saves
//   no credit. (Deficit round robin, tried first, lost a client its turn in the moment between
//   one chunk of its single stream and the next: such a client got a fifth of its share.)
// It is work-conserving: a client alone, or the only one waiting, gets the whole rate.

/** The clock the scheduler waits on (tests pass a controlled one). */
export interface SchedulerClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Calls `fn` after `ms`; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const realClock: SchedulerClock = {
  now: () => performance.now(),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** A scheduler timer later than this says the event loop is short of time. */
export const LAG_TARGET_MS = 10;
const CUT_EVERY_MS = 100;
const RAISE_EVERY_MS = 100;

export interface ByteSchedulerOptions {
  /** The instance's largest budget of proxied bytes per second; 0: no budget (every chunk passes at once, still in fair order). */
  bytesPerSecond: number;
  /** What the bucket may hold after a quiet moment. */
  burstBytes: number;
  clock?: SchedulerClock;
}

interface Waiting {
  bytes: number;
  /** Its start tag: where it begins in its client's virtual time. */
  start: number;
  resolve(): void;
}

export class ByteScheduler {
  private readonly clock: SchedulerClock;
  /** Chunks waiting, per client, in the order they came (a client's tags only grow). */
  private readonly queues = new Map<string, Waiting[]>();
  /** Per client: the end tag of its last chunk (forgotten once virtual time has passed it). */
  private readonly finish = new Map<string, number>();
  /** Virtual time: the start tag of the last chunk granted. */
  private virtualTime = 0;
  private tokens: number;
  private refilledAt: number;
  private cancelTimer: (() => void) | null = null;
  /** The budget now, between a sixteenth of bytesPerSecond and all of it. */
  private rate: number;
  private cutAt = -Infinity;
  private raisedAt = -Infinity;

  constructor(private readonly options: ByteSchedulerOptions) {
    this.clock = options.clock ?? realClock;
    this.tokens = options.burstBytes;
    this.refilledAt = this.clock.now();
    this.rate = options.bytesPerSecond;
  }

  /** The budget now, in bytes per second (0: none). */
  get bytesPerSecond(): number {
    return this.rate;
  }

  /** Resolves when `bytes` of `client`'s may leave; they are counted against the budget then. */
  send(client: string, bytes: number): Promise<void> {
    return new Promise((resolve) => {
      const start = Math.max(this.virtualTime, this.finish.get(client) ?? 0);
      this.finish.set(client, start + bytes);
      let queue = this.queues.get(client);
      if (queue === undefined) this.queues.set(client, (queue = []));
      queue.push({ bytes, start, resolve });
      this.dispatch();
    });
  }

  /** Clients with a chunk waiting. */
  get waitingClients(): number {
    return this.queues.size;
  }

  private dispatch(): void {
    this.refill();
    const unlimited = this.options.bytesPerSecond === 0;
    while (this.queues.size > 0 && (unlimited || this.tokens > 0)) {
      // The waiting chunk with the smallest start tag: the first of some client's queue.
      let client = '';
      let first: Waiting | undefined;
      for (const [key, queue] of this.queues) {
        if (first === undefined || queue[0]!.start < first.start) [client, first] = [key, queue[0]!];
      }
      const queue = this.queues.get(client)!;
      queue.shift();
      if (queue.length === 0) this.queues.delete(client);
      this.virtualTime = first!.start;
      // The bucket may go below zero by one chunk: that debt is paid back before the next grant.
      if (!unlimited) this.tokens -= first!.bytes;
      first!.resolve();
    }
    if (this.finish.size > 2 * this.queues.size + 1024) this.forgetIdle();
    if (this.queues.size > 0 && this.cancelTimer === null) {
      const waitMs = Math.max(1, ((1 - this.tokens) / this.rate) * 1000);
      const due = this.clock.now() + waitMs;
      this.cancelTimer = this.clock.after(waitMs, () => {
        this.cancelTimer = null;
        this.adapt(this.clock.now() - due);
        this.dispatch();
      });
    }
  }

  /** Clients whose last chunk ends before virtual time would start there anyway: forgotten. */
  private forgetIdle(): void {
    for (const [client, end] of this.finish) if (end <= this.virtualTime && !this.queues.has(client)) this.finish.delete(client);
  }

  /** Cuts the budget when a timer fired `lateMs` past LAG_TARGET_MS, raises it when on time. */
  private adapt(lateMs: number): void {
    const now = this.clock.now();
    const max = this.options.bytesPerSecond;
    if (lateMs > LAG_TARGET_MS) {
      if (now - this.cutAt < CUT_EVERY_MS) return;
      this.cutAt = this.raisedAt = now;
      this.rate = Math.max(max / 16, this.rate * 0.75);
    } else if (now - this.raisedAt >= RAISE_EVERY_MS && now - this.cutAt >= RAISE_EVERY_MS) {
      this.raisedAt = now;
      this.rate = Math.min(max, this.rate + max / 16);
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const earned = ((now - this.refilledAt) / 1000) * this.rate;
    this.refilledAt = now;
    this.tokens = Math.min(this.options.burstBytes, this.tokens + earned);
  }
}
