// The life of one upstream fetch, from the call to the last body byte (issue 4): one total deadline
// covering the queue, connect, headers and body; the caller's own signal; and the limiter slot,
// released exactly once, whichever of body end, close(), caller abort or deadline comes first.

import { FetchFailed, FetchTimeout } from '../errors.js';
import type { Release } from './limiter.js';

export class FetchLifetime {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private release: Release | null = null;
  private ended = false;
  /** Set when the deadline ended the fetch: every error after it is reported as FetchTimeout. */
  timedOut = false;
  /** Set when the caller's signal ended the fetch. */
  callerAborted = false;

  constructor(
    readonly deadlineMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.end(new FetchTimeout(`deadline of ${deadlineMs} ms passed`));
    }, deadlineMs);
    // A forgotten response must not keep the process alive; the deadline still frees its slot.
    this.timer.unref();
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Aborts the request, its connection (HTTP/1.1) or stream (HTTP/2) and the body. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Hands over the limiter slot; released at end(). */
  hold(release: Release): void {
    if (this.ended) release();
    else this.release = release;
  }

  /**
   * Ends the fetch: stops the deadline, frees the slot and, when `abortWith` is given, aborts the
   * upstream (PITFALLS.md: on HTTP/2 only aborting the controller closes the stream). Idempotent.
   * `abortWith` may be a function, so that the common repeated call (close() after the body
   * ended) does not build an Error, and capture its stack, for nothing.
   */
  end(abortWith?: Error | (() => Error)): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (abortWith) this.controller.abort(typeof abortWith === 'function' ? withoutTrace(abortWith) : abortWith);
    this.release?.();
    this.release = null;
  }

  private readonly onCallerAbort = (): void => {
    this.callerAborted = true;
    this.end(() => new FetchFailed('aborted by the caller'));
  };
}

/**
 * The reasons built here only close the upstream: Node formats the stack trace of every error a
 * stream is destroyed with, and a trace that points into end() tells nobody anything. They are
 * built without frames (the stack is the name and message); the deadline's error keeps its trace.
 */
function withoutTrace(make: () => Error): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
