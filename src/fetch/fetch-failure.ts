// How an error from the network stack reads to the caller (failure-reasons.ts). A name that
// resolves to a blocked address, a redirect to one, and a site that resets the connection all read
// `unreachable`: the API never tells a private address from a public one. A refused connection or
// a TLS failure can only come from an address the guard let through (the guard refuses before
// dialling), so naming them reveals nothing about private networks.

import { failures, type FetchFailure } from '../failure-reasons.js';
import { RESOLVER_UNAVAILABLE } from './resolver.js';

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
export function findInChain(err: unknown, match: (e: Coded) => boolean, depth = 0): Coded | null {
  if (depth > 5 || typeof err !== 'object' || err === null) return null;
  if (match(err)) return err;
  const inner = err instanceof AggregateError ? err.errors : [(err as { cause?: unknown }).cause];
  for (const e of inner) {
    const found = findInChain(e, match, depth + 1);
    if (found) return found;
  }
  return null;
}
