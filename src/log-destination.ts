// Where log lines go: stdout, gathered and written together, synchronously, and never waited on
// for longer than a bound. pino's own destination (sonic-boom) retries a failed write of its
// exit-time flush every 100 ms for ever, whatever the error: once the process's stdout pipe has
// closed (the log collector died) every write fails with EPIPE, and the process never exits,
// deaf to further signals, since the retry loop is synchronous.

import fs from 'node:fs';

export interface BufferedLinesOptions {
  /** Pending bytes that trigger a write. */
  minLength: number;
  /** A quiet instance's lines go out within this (0: only on size and flush). */
  flushEveryMs: number;
  /** Longest a write is retried while the reader is merely slow (EAGAIN); past it the lines are dropped. */
  retryForMs: number;
}

/** Writing errors that mean "try again shortly": a non-blocking pipe that is full. */
const TRANSIENT = new Set(['EAGAIN', 'EBUSY']);
const RETRY_PAUSE_MS = 10;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * A pino destination on a file descriptor. A write that fails for good (EPIPE, EBADF: nobody
 * reads any more) turns the destination off: later lines are counted in `dropped` and
 * discarded, since there is nowhere left to say anything. A reader that is only slow is waited
 * for at most `retryForMs` per flush.
 */
export class BufferedLines {
  private pending: string[] = [];
  private pendingBytes = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout | undefined;
  /** Lines given up on: written while the reader was gone, or too slow to take them. */
  dropped = 0;

  constructor(
    private readonly fd: number,
    private readonly options: BufferedLinesOptions,
  ) {
    if (options.flushEveryMs > 0) {
      this.timer = setInterval(() => this.flushSync(), options.flushEveryMs);
      this.timer.unref();
    }
  }

  /** True once stdout has gone for good. */
  get broken(): boolean {
    return this.closed;
  }

  write(line: string): boolean {
    if (this.closed) {
      this.dropped++;
      return true;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= this.options.minLength) this.flushSync();
    return true;
  }

  /** pino's logger.flush(cb). */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync();
    cb?.();
  }

  /** Writes what is pending; `retryForMs` 0 makes one attempt only (a second signal exits at once). */
  flushSync(retryForMs = this.options.retryForMs): void {
    if (this.pending.length === 0) return;
    const lines = this.pending.length;
    let buf = Buffer.from(this.pending.join(''));
    this.pending = [];
    this.pendingBytes = 0;
    const giveUpAt = Date.now() + retryForMs;
    while (buf.length > 0) {
      try {
        buf = buf.subarray(fs.writeSync(this.fd, buf));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (TRANSIENT.has(code) && Date.now() < giveUpAt) {
          Atomics.wait(pause, 0, 0, RETRY_PAUSE_MS);
          continue;
        }
        this.dropped += lines;
        if (!TRANSIENT.has(code)) this.close();
        return;
      }
    }
  }

  close(): void {
    this.closed = true;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.timer) clearInterval(this.timer);
  }
}
