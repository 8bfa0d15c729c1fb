// Every way an upstream fetch can fail becomes one of three typed errors: FetchTimeout
// when the deadline passed, Overloaded for our own saturation (the limiter refused, the deadline
// passed while still waiting for a slot, the resolver is overloaded), FetchFailed for all the rest.
// A FetchFailed carries the failure the caller is told (fetch-failure.ts: a blocked address reads
// like any unreachable site, so the API is no port scanner) and, in `reason`, the detail for logs.

import { FetchFailed, FetchTimeout, LinkPeekError, Overloaded } from '../errors.js';
import { BlockedAddressError } from './address.js';
import { failures } from '../failure-reasons.js';
import { classifyNetworkError, findInChain } from './fetch-failure.js';
import type { FetchLifetime } from './lifetime.js';
import { RESOLVER_UNAVAILABLE } from './resolver.js';

/** Which part of the exchange failed; prefixes the logged reason. */
export type FetchStage = 'request' | 'body';

/** The code the resolver gives a lookup it refused because too many are in flight. */
const RESOLVER_OVERLOADED = 'EDNSOVERLOAD';

/** `hostname`: the host being fetched, named in the message when its name does not resolve. */
export function toFetchError(err: unknown, stage: FetchStage, lifetime: FetchLifetime, hostname: string): LinkPeekError {
  if (lifetime.timedOut && !lifetime.holdsSlot) {
    return new Overloaded(`deadline of ${lifetime.deadlineMs} ms passed while waiting for a fetch slot`, { cause: err });
  }
  // The deadline wins over whatever error the abort caused downstream (premature close, reset).
  // A fetch that waited for its slot had less than the whole deadline for the page: its timeout
  // is not held against the page.
  if (lifetime.timedOut) {
    const pageFailure = !lifetime.waitedForSlot;
    if (err instanceof FetchTimeout && err.pageFailure === pageFailure) return err;
    return new FetchTimeout(`deadline of ${lifetime.deadlineMs} ms passed during ${stage}`, { cause: err, deadlineMs: lifetime.deadlineMs, pageFailure });
  }
  if (err instanceof LinkPeekError) return err;
  if (hasCode(err, RESOLVER_OVERLOADED)) return new Overloaded('the resolver has too many lookups in flight', { cause: err });
  // Our nameservers failed, not the page: never remembered as the page's failure.
  if (hasCode(err, RESOLVER_UNAVAILABLE)) {
    return new FetchFailed(`${stage}: no nameserver answered`, { cause: err, failure: failures.resolverUnavailable(), pageFailure: false });
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new FetchTimeout(`${stage}: ${code}`, { cause: err, deadlineMs: lifetime.deadlineMs });
  }
  if (lifetime.callerAborted) return new FetchFailed('aborted by the caller', { cause: err, pageFailure: false });
  const blocked = findBlocked(err);
  if (blocked) {
    const detail = `blocked address: ${blocked.hostname} → ${blocked.address} (${blocked.why})`;
    return new FetchFailed(detail, { cause: err, failure: failures.unreachable() });
  }
  return new FetchFailed(`${stage}: ${describe(err)}`, { cause: err, failure: classifyNetworkError(err, hostname) });
}

/** The guard's error, wherever undici or net wrapped it (cause chain, AggregateError of Happy Eyeballs). */
export function findBlocked(err: unknown): BlockedAddressError | null {
  return findInChain(err, (e) => e instanceof BlockedAddressError) as BlockedAddressError | null;
}

/** True when `err` or an error it wraps carries `code`. */
function hasCode(err: unknown, code: string): boolean {
  return findInChain(err, (e) => e.code === code) !== null;
}

function describe(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code.startsWith('Z_')) return `corrupt content-encoding (${code})`;
  if (typeof code === 'string' && /^ERR_(_|BROTLI)/.test(code)) return `corrupt content-encoding (${code})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timeout';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- an odd thrown value still gets a description
  return typeof code === 'string' ? code : String(message ?? err);
}
