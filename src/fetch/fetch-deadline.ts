// The deadline of one upstream fetch, from the call to the last body byte, and what it ends: one
// total deadline covering the queue, connect, headers and body; the caller's own signal; and the
// limiter slot, released exactly once, whichever of body end, close(), caller abort or deadline
// comes first. (How long an answer is kept is another thing: cache/lifetime.ts.)

import { FetchFailed, FetchTimeout } from '../errors.js';
import type { Release } from './limiter.js';
import { withoutTraces } from './without-traces.js';

export class FetchDeadline {
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
      this.end(new FetchTimeout(`deadline of ${deadlineMs} ms passed`, { deadlineMs }));
    }, deadlineMs);
    // A forgotten response must not keep the process alive; the deadline still frees its slot.
    this.timer.unref();
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  private idle: NodeJS.Timeout | undefined;
  private bodyTimer: NodeJS.Timeout | undefined;

  /**
   * From the response headers on (SafeFetchOptions.bodyDeadline): the total deadline gives way to
   * one on idleness, renewed by progress(), within a longer bound on the whole body.
   */
  forBody({ idleMs, totalMs }: { idleMs: number; totalMs: number }): void {
    if (this.ended) return;
    clearTimeout(this.timer);
    this.idle = setTimeout(() => this.expire(`no body bytes for ${idleMs} ms`, idleMs), idleMs).unref();
    this.bodyTimer = setTimeout(() => this.expire(`body not read within ${totalMs} ms`, totalMs), totalMs).unref();
  }

  /** A body chunk arrived: the idle deadline starts again (a no-op without forBody). */
  progress(): void {
    this.idle?.refresh();
  }

  private expire(why: string, deadlineMs: number): void {
    this.timedOut = true;
    this.end(new FetchTimeout(why, { deadlineMs }));
  }

  /** Aborts the request, its connection (HTTP/1.1) or stream (HTTP/2) and the body. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Set once the fetch holds a limiter slot; false while it still waits for one. */
  holdsSlot = false;
  /** Set when the fetch had to wait for its slot: the deadline then counted our queue, not just the page. */
  waitedForSlot = false;

  /** Hands over the limiter slot; released at end(). */
  hold(release: Release): void {
    this.holdsSlot = true;
    this.waitedForSlot ||= release.queued === true;
    if (this.ended) release();
    else this.release = release;
  }

  /** Frees the slot before the fetch ends (a redirect hop to another destination asks anew). */
  letGo(): void {
    this.holdsSlot = false;
    this.release?.();
    this.release = null;
  }

  /**
   * Ends the fetch: stops the deadline, frees the slot and, when `abortWith` is given, aborts the
   * upstream (on HTTP/2, undici closes the server's stream only when the controller aborts; a
   * reader's cancel() alone leaves it open). Idempotent.
   * `abortWith` may be a function, so that the common repeated call (close() after the body
   * ended) does not build an Error, and capture its stack, for nothing.
   */
  end(abortWith?: Error | (() => Error)): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    clearTimeout(this.idle);
    clearTimeout(this.bodyTimer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (abortWith) {
      const controller = this.controller;
      // Closing the upstream builds errors nobody reads: the reason made here, and undici's own
      // while it tears the request down (RequestAbortedError, InformationalError('aborted')), all
      // synchronously inside abort(); Node would format the stack of every error a stream is
      // destroyed with, on every page, which always stops at `<body>`. A deadline's error, built
      // before, keeps its trace.
      withoutTraces(() => controller.abort(typeof abortWith === 'function' ? abortWith() : abortWith));
    }
    this.release?.();
    this.release = null;
  }

  private readonly onCallerAbort = (): void => {
    this.callerAborted = true;
    this.end(() => new FetchFailed('aborted by the caller', { pageFailure: false }));
  };
}
