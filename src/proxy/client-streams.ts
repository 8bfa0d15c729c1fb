// How many upstream image fetches one client has open at once. Past its share of the egress budget
// (byte-scheduler.ts) another stream gives a client no more bytes a second, only another upstream
// connection whose bytes wait unread: in the kernel's socket buffers, megabytes each. 64
// addresses pulling 4 MB images held about 1,500 of them (bench:fairness, TCP memory near the
// kernel's pressure threshold, every connection of the machine slowed). A request past the cap
// waits here, before its upstream is opened, and costs nothing but its own connection.

/** A slot given to a request: call it once its upstream is closed (idempotent). */
export type Release = () => void;

export class ClientStreams {
  private readonly open = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** `perClient` 0: no cap. */
  constructor(private readonly perClient: number) {}

  /** A slot of `client`'s, at once or when one is released; rejects with the signal's reason if it aborts first. */
  async acquire(client: string, signal: AbortSignal): Promise<Release> {
    if (this.perClient === 0) return () => {};
    signal.throwIfAborted();
    const held = this.open.get(client) ?? 0;
    if (held < this.perClient) this.open.set(client, held + 1);
    else await this.wait(client, signal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(client);
    };
  }

  /** Upstreams `client` has open. */
  held(client: string): number {
    return this.open.get(client) ?? 0;
  }

  /** Clients with an upstream open. */
  get clients(): number {
    return this.open.size;
  }

  private wait(client: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const handOver = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const queue = this.waiting.get(client) ?? [];
        const at = queue.indexOf(handOver);
        if (at !== -1) queue.splice(at, 1);
        if (queue.length === 0) this.waiting.delete(client);
        reject(signal.reason);
      };
      let queue = this.waiting.get(client);
      if (queue === undefined) this.waiting.set(client, (queue = []));
      queue.push(handOver);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The slot goes to the client's next waiting request, or is freed. */
  private release(client: string): void {
    const queue = this.waiting.get(client);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(client);
    if (next) return next();
    const left = this.open.get(client)! - 1;
    if (left === 0) this.open.delete(client);
    else this.open.set(client, left);
  }
}
