// Every way an upstream fetch can fail becomes one of three typed errors: FetchTimeout when the
// deadline passed, Overloaded for our own saturation (the limiter refused, the deadline passed
// while still waiting for a slot, the resolver is overloaded), FetchFailed for all the rest.
// A FetchFailed carries the failure the caller is told (failure-reasons.ts) and, in `reason`, the
// detail for logs. A name that resolves to a blocked address, a redirect to one, and a site that
// resets the connection all read `unreachable`: the API never tells a private address from a
// public one, and is no port scanner. A refused connection or a TLS failure can only come from an
// address the guard let through (the guard refuses before dialling), so naming them reveals
// nothing about private networks.

import { FetchFailed, FetchTimeout, LinkPeekError, Overloaded } from '../errors.js';
import { failures, type FetchFailure } from '../failure-reasons.js';
import { BlockedAddressError } from './address.js';
import type { FetchDeadline } from './fetch-deadline.js';
import { RESOLVER_UNAVAILABLE } from './resolver.js';

/** Which part of the exchange failed; prefixes the logged reason. */
export type FetchStage = 'request' | 'body';

/** The code the resolver gives a lookup it refused because too many are in flight. */
const RESOLVER_OVERLOADED = 'EDNSOVERLOAD';

/** `hostname`: the host being fetched, named in the message when its name does not resolve. */
export function toFetchError(err: unknown, stage: FetchStage, deadline: FetchDeadline, hostname: string): LinkPeekError {
  if (deadline.timedOut && !deadline.holdsSlot) {
    return new Overloaded(`deadline of ${deadline.deadlineMs} ms passed while waiting for a fetch slot`, 1, { cause: err });
  }
  // The deadline wins over whatever error the abort caused downstream (premature close, reset).
  // A fetch that waited for its slot had less than the whole deadline for the page: its timeout
  // is not held against the page.
  if (deadline.timedOut) {
    const pageFailure = !deadline.waitedForSlot;
    if (err instanceof FetchTimeout && err.pageFailure === pageFailure) return err;
    return new FetchTimeout(`deadline of ${deadline.deadlineMs} ms passed during ${stage}`, { cause: err, deadlineMs: deadline.deadlineMs, pageFailure });
  }
  if (err instanceof LinkPeekError) return err;
  if (hasCode(err, RESOLVER_OVERLOADED)) return new Overloaded('the resolver has too many lookups in flight', 1, { cause: err });
  // Our nameservers failed, not the page: never remembered as the page's failure.
  if (hasCode(err, RESOLVER_UNAVAILABLE)) {
    return new FetchFailed(`${stage}: no nameserver answered`, { cause: err, failure: failures.resolverUnavailable(), pageFailure: false });
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new FetchTimeout(`${stage}: ${code}`, { cause: err, deadlineMs: deadline.deadlineMs });
  }
  if (deadline.callerAborted) return new FetchFailed('aborted by the caller', { cause: err, pageFailure: false });
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

/**
 * Node's dns error codes for a name that has no usable answer (dns.lookup and dns.Resolver alike).
 * EBADNAME is a name DNS cannot carry (a label over 63 characters, over 253 in all): it resolves
 * nowhere, says nothing about any address, and the user's fix is the same as for a typo.
 */
const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'ESERVFAIL', 'ETIMEOUT', 'EREFUSED', 'EBADNAME']);
/** OpenSSL's verification failures and Node's host-name check: the certificate, not the network. */
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH/;

/**
 * The failure an error from the network stack stands for, looked for through its whole cause
 * chain (undici and net wrap errors; Happy Eyeballs gathers them in an AggregateError). `hostname`
 * names the site when the dns error does not carry its own.
 */
export function classifyNetworkError(err: unknown, hostname: string): FetchFailure {
  if (findInChain(err, (e) => e.code === RESOLVER_UNAVAILABLE)) return failures.resolverUnavailable();
  const dns = findInChain(err, (e) => typeof e.code === 'string' && DNS_CODES.has(e.code));
  if (dns) return failures.nameNotResolved(typeof dns.hostname === 'string' && dns.hostname !== '' ? dns.hostname : hostname);
  if (findInChain(err, (e) => typeof e.code === 'string' && CERTIFICATE_CODE.test(e.code))) return failures.tlsCertificate();
  if (findInChain(err, (e) => e.code === 'ECONNREFUSED')) return failures.connectionRefused();
  if (findInChain(err, (e) => typeof e.code === 'string' && /^(Z_|ERR_BROTLI|ERR__)/.test(e.code))) return failures.undecodable();
  return failures.unreachable();
}

type Coded = { code?: unknown; hostname?: unknown };

/** The first error in `err`'s cause chain (and AggregateError members) that `match` accepts. */
function findInChain(err: unknown, match: (e: Coded) => boolean, depth = 0): Coded | null {
  if (depth > 5 || typeof err !== 'object' || err === null) return null;
  if (match(err)) return err;
  const inner = err instanceof AggregateError ? err.errors : [(err as { cause?: unknown }).cause];
  for (const e of inner) {
    const found = findInChain(e, match, depth + 1);
    if (found) return found;
  }
  return null;
}
