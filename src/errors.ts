// Typed errors, and the one place where they become HTTP. A missing field is null, never an
// exception: only bad input and failed fetches throw.
//
// Every error the service raises on purpose is a LinkPeekError with a stable `code`. Only client
// errors expose their message; anything else becomes a 500 whose body never shows a stack.
// The body shape depends on the endpoint (docs/SPEC.md "Errors"): the metadata endpoint answers
// ValidationError for 400 and `{code, message}` otherwise; the image proxy answers `{error}`.

import { failures, type FetchFailure } from './failure-reasons.js';

export type ErrorCode =
  'INVALID_INPUT' | 'NOT_FOUND' | 'RATE_LIMITED' | 'FETCH_FAILED' | 'FETCH_TIMEOUT' | 'OVERLOADED' | 'PROXY_REJECTED' | 'FETCH_LOOP' | 'METHOD_NOT_ALLOWED';

export interface FieldProblem {
  /** Where the problem is, e.g. ['query', 'url']. */
  path: string[];
  message: string;
}

/**
 * Turns stack traces off for the error about to be built, and returns the setting to put back
 * after it. For refusals (429, 503 Overloaded): past capacity hundreds are made a second, they are
 * answers rather than faults, and where one was thrown says nothing. Capturing the stack was 7% of
 * a 429's CPU (bench/refusal-cost.ts).
 */
function refusalWithoutStack(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return limit;
}

export abstract class LinkPeekError extends Error {
  abstract readonly code: ErrorCode;
  /**
   * True when the failure is the target page's own (its host refused, timed out, answered 404...):
   * the service may remember it for CACHE_FAILURE_TTL_MS and repeat it to everyone without
   * fetching. False for every other error, notably those of our own saturation (Overloaded, a
   * deadline spent waiting for a fetch slot, the resolver overloaded): they say nothing about the
   * page, and the next request must try it afresh.
   */
  readonly pageFailure: boolean = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request itself is wrong: a bad parameter. One entry per problem. */
export class InvalidInput extends LinkPeekError {
  readonly code = 'INVALID_INPUT';
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => `${p.path.at(-1) ?? 'request'}: ${p.message}`).join('; '));
  }
}

export class NotFound extends LinkPeekError {
  readonly code = 'NOT_FOUND';
  constructor(path: string) {
    super(`No such endpoint: ${path}`);
  }
}

export class RateLimited extends LinkPeekError {
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly retryAfterSeconds: number,
    what = 'Too many requests',
  ) {
    const stackTraceLimit = refusalWithoutStack();
    super(`${what}; retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`);
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/**
 * The upstream could not be fetched. `failure` is what the caller is told (a reason of
 * openapi.yaml's enum and its message, failure-reasons.ts); `reason` is the detail for logs
 * (addresses, codes), never sent.
 */
export class FetchFailed extends LinkPeekError {
  readonly code: ErrorCode = 'FETCH_FAILED';
  readonly failure: FetchFailure;
  override readonly pageFailure: boolean;
  constructor(
    readonly reason: string,
    options?: { cause?: unknown; failure?: FetchFailure; pageFailure?: boolean },
  ) {
    const failure = options?.failure ?? failures.unreachable();
    super(failure.message, options);
    this.failure = failure;
    this.pageFailure = options?.pageFailure ?? true;
  }
}

/**
 * The total deadline of one upstream fetch passed (connect, headers or body), or the request
 * deadline over fetch, scan and enrichment. `failure` restores a cached one's own words (the
 * deadline it names).
 */
export class FetchTimeout extends FetchFailed {
  override readonly code: ErrorCode = 'FETCH_TIMEOUT';
  constructor(reason: string, options: { cause?: unknown; deadlineMs: number; pageFailure?: boolean; failure?: FetchFailure }) {
    const { deadlineMs, failure, ...rest } = options;
    super(reason, { ...rest, failure: failure ?? failures.timeout(deadlineMs) });
  }
}

/**
 * Our own saturation: every fetch slot taken and the queue full, the client's or the
 * destination's share taken and its queue full, the fetch deadline spent still waiting for a
 * slot, or the resolver overloaded. Never the page's failure (pageFailure false). `reason` is
 * for logs only.
 */
export class Overloaded extends LinkPeekError {
  readonly code = 'OVERLOADED';
  constructor(
    readonly reason = 'every fetch slot taken and the queue full',
    /** How long the client should wait (Retry-After): the heaviest clients are told to wait longest. */
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    const stackTraceLimit = refusalWithoutStack();
    super(`The service is busy; retry in ${retryAfterSeconds === 1 ? 'a second' : `${retryAfterSeconds} seconds`}.`, options);
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/**
 * A page's scan did not finish because the thread running it died or was ended (src/scan/
 * scan-pool.ts). Our fault, never the page's (the scan's bounds make every page finish): not a
 * LinkPeekError, so it is a 500 with no detail, and nothing is cached.
 */
export class ScanFailed extends Error {
  override readonly name = 'ScanFailed';
}

/** A request that carries our own `Via`: the service would be fetching itself. */
export class FetchLoop extends LinkPeekError {
  readonly code = 'FETCH_LOOP';
  constructor() {
    super(failures.fetchLoop().message);
  }
}

/** A documented path asked with a method it does not answer (RFC 9110 15.5.6: 405 with Allow). */
export class MethodNotAllowed extends LinkPeekError {
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(
    method: string,
    path: string,
    readonly allow: readonly string[],
  ) {
    super(`${method} is not allowed on ${path}; use ${allow.join(' or ')}.`);
  }
}

/** The proxy refused the upstream's answer: not an image, empty, or an unsupported format. */
export class ProxyRejected extends LinkPeekError {
  readonly code = 'PROXY_REJECTED';
}

/** An error as one log field: its code and, for a failed fetch, the detail behind it. */
export function describeError(err: unknown): string {
  if (err instanceof LinkPeekError) {
    const reason = (err as { reason?: unknown }).reason;
    return typeof reason === 'string' ? `${err.code}: ${reason}` : err.code;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Which body shape an endpoint speaks (docs/SPEC.md "Errors"). */
export type ErrorSurface = 'metadata' | 'proxy';

export interface HttpError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const noStore = { 'Cache-Control': 'no-store' };

/** The single mapping from an error to an HTTP answer. */
export function toHttpError(err: unknown, surface: ErrorSurface): HttpError {
  if (!(err instanceof LinkPeekError)) {
    return shaped(500, 'Internal server error.', surface, noStore);
  }
  switch (err.code) {
    case 'INVALID_INPUT': {
      const problems = (err as InvalidInput).problems;
      if (surface === 'proxy') return { status: 400, body: { error: err.message }, headers: noStore };
      return {
        status: 400,
        body: {
          success: false,
          errors: problems.map((p) => ({ code: 400, message: p.message, path: p.path })),
        },
        headers: noStore,
      };
    }
    case 'RATE_LIMITED': {
      const seconds = (err as RateLimited).retryAfterSeconds;
      return shaped(429, err.message, surface, { 'Retry-After': String(seconds) });
    }
    case 'NOT_FOUND':
      return shaped(404, err.message, surface, noStore);
    case 'FETCH_FAILED':
      if (surface === 'proxy') return proxyFailure(502, 'The image could not be fetched.', (err as FetchFailed).failure);
      return unprocessable((err as FetchFailed).failure);
    case 'FETCH_TIMEOUT':
      if (surface === 'proxy') return proxyFailure(504, 'The image took too long to fetch.', (err as FetchFailed).failure);
      return unprocessable((err as FetchFailed).failure);
    case 'OVERLOADED':
      return shaped(503, err.message, surface, { ...noStore, 'Retry-After': String((err as Overloaded).retryAfterSeconds) });
    case 'FETCH_LOOP':
      return surface === 'proxy' ? shaped(400, err.message, surface, noStore) : unprocessable(failures.fetchLoop());
    case 'METHOD_NOT_ALLOWED':
      return shaped(405, err.message, surface, { ...noStore, Allow: (err as MethodNotAllowed).allow.join(', ') });
    case 'PROXY_REJECTED':
      return shaped(400, err.message, surface, noStore);
  }
}

/** The metadata endpoint's 422: what failed, as a reason of openapi.yaml's enum and its message. */
function unprocessable(failure: FetchFailure): HttpError {
  return { status: 422, body: { code: 422, message: failure.message, reason: failure.reason }, headers: noStore };
}

/** The proxy's 502 and 504: what failed, as the metadata 422 says it, after what it means for the image. */
function proxyFailure(status: number, summary: string, failure: FetchFailure): HttpError {
  return { status, body: { error: `${summary} ${failure.message}`, reason: failure.reason }, headers: noStore };
}

function shaped(status: number, message: string, surface: ErrorSurface, headers: Record<string, string>): HttpError {
  return { status, body: surface === 'proxy' ? { error: message } : { code: status, message }, headers };
}
