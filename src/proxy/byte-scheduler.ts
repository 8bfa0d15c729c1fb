// Proxied bytes are a shared resource: every chunk of a proxied image waits here for its turn
// before it is pushed towards the client, and the next chunk is not pulled from the upstream until
// then, so the upstream is read no faster than its bytes leave (backpressure through the body's
// stream to the upstream connection).
//
// Two rules:
// - The instance sends at most `bytesPerSecond` of proxied bytes (a token bucket holding at most
//   `burstBytes`): copying bytes from one socket to another costs the event loop CPU per byte,
//   and past a measured rate (bench/results/fairness.md) it slowed metadata answers.
// - Clients share that rate fairly: deficit round robin (Shreedhar and Varghese, 1995) over the
//   clients with a chunk waiting, each turn a `quantumBytes` credit, so a client with many streams
//   gets the share of one client, and a chunk of any size is paid for in full.
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

export interface ByteSchedulerOptions {
  /** The instance's budget of proxied bytes per second; 0: no budget (every chunk passes at once, still in fair order). */
  bytesPerSecond: number;
  /** What the bucket may hold after a quiet moment. */
  burstBytes: number;
  /** Each client's credit per turn: at least the usual chunk, so most turns send one. */
  quantumBytes: number;
  clock?: SchedulerClock;
}

interface Waiting {
  bytes: number;
  resolve(): void;
}

interface ClientQueue {
  deficit: number;
  waiting: Waiting[];
}

export class ByteScheduler {
  private readonly clock: SchedulerClock;
  /** Clients with a chunk waiting, in turn order; the first is served. */
  private readonly turns: string[] = [];
  private readonly queues = new Map<string, ClientQueue>();
  /** The client at the head of `turns` whose quantum for this turn was already given. */
  private credited: string | null = null;
  private tokens: number;
  private refilledAt: number;
  private cancelTimer: (() => void) | null = null;

  constructor(private readonly options: ByteSchedulerOptions) {
    this.clock = options.clock ?? realClock;
    this.tokens = options.burstBytes;
    this.refilledAt = this.clock.now();
  }

  /** Resolves when `bytes` of `client`'s may leave; they are counted against the budget then. */
  send(client: string, bytes: number): Promise<void> {
    return new Promise((resolve) => {
      let queue = this.queues.get(client);
      if (queue === undefined) {
        queue = { deficit: 0, waiting: [] };
        this.queues.set(client, queue);
        this.turns.push(client);
      }
      queue.waiting.push({ bytes, resolve });
      this.dispatch();
    });
  }

  /** Clients with a chunk waiting. */
  get waitingClients(): number {
    return this.turns.length;
  }

  private dispatch(): void {
    this.refill();
    const unlimited = this.options.bytesPerSecond === 0;
    while (this.turns.length > 0 && (unlimited || this.tokens > 0)) {
      const client = this.turns[0]!;
      const queue = this.queues.get(client)!;
      if (this.credited !== client) {
        queue.deficit += this.options.quantumBytes;
        this.credited = client;
      }
      const next = queue.waiting[0]!;
      if (next.bytes > queue.deficit) {
        // Its credit is spent for this turn: the next client's turn.
        this.turns.push(this.turns.shift()!);
        this.credited = null;
        continue;
      }
      queue.waiting.shift();
      queue.deficit -= next.bytes;
      // The bucket may go below zero by one chunk: that debt is paid back before the next grant.
      if (!unlimited) this.tokens -= next.bytes;
      if (queue.waiting.length === 0) {
        // An idle client keeps no credit (DRR): it cannot save up turns.
        this.queues.delete(client);
        this.turns.shift();
        this.credited = null;
      }
      next.resolve();
    }
    if (this.turns.length > 0 && this.cancelTimer === null) {
      const waitMs = Math.max(1, ((1 - this.tokens) / this.options.bytesPerSecond) * 1000);
      this.cancelTimer = this.clock.after(waitMs, () => {
        this.cancelTimer = null;
        this.dispatch();
      });
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const earned = ((now - this.refilledAt) / 1000) * this.options.bytesPerSecond;
    this.refilledAt = now;
    this.tokens = Math.min(this.options.burstBytes, this.tokens + earned);
  }
}
