// What a 422 tells the caller about a page that could not be fetched: a machine-readable `reason`
// (the enum of openapi.yaml's ApiError.reason) and a message a person can act on. One entry per
// reason, built here and nowhere else, so every message of one reason reads the same.
//
// A name that resolves to a blocked address, a redirect to one, and a site that resets the
// connection all read `unreachable`: the API never tells a private address from a public one.
// A refused connection or a TLS failure can only come from an address the guard let through (the
// guard refuses before dialling), so naming them reveals nothing about private networks.

import type { FailureReason } from '../../generated/types.gen.js';
import { RESOLVER_UNAVAILABLE } from './resolver.js';

export interface FetchFailure {
  reason: FailureReason;
  message: string;
}

/** "8 s", "1.5 s": deadlines are settings in milliseconds, said in seconds. */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** "8 MiB", "1.5 MiB", "512 KiB": byte limits are settings in bytes. */
function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 104857.6) / 10} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

export const failures = {
  httpStatus: (status: number): FetchFailure => ({ reason: 'http_status', message: `The site answered ${status}.` }),
  timeout: (deadlineMs: number): FetchFailure => ({ reason: 'timeout', message: `The site did not answer within ${seconds(deadlineMs)}.` }),
  nameNotResolved: (hostname: string): FetchFailure => ({ reason: 'name_not_resolved', message: `The name ${hostname} does not resolve.` }),
  // Our own resolver, not the site: the message says so, so nobody goes looking for a fault in the site.
  resolverUnavailable: (): FetchFailure => ({
    reason: 'resolver_unavailable',
    message: "LinkPeek's DNS resolver did not answer, so the site was not tried; retry later.",
  }),
  tooManyRedirects: (max: number): FetchFailure => ({ reason: 'too_many_redirects', message: `More than ${max} redirects.` }),
  redirectLoop: (): FetchFailure => ({ reason: 'redirect_loop', message: 'The site redirects in a loop.' }),
  badRedirect: (): FetchFailure => ({ reason: 'bad_redirect', message: 'The site redirects to an address that cannot be followed.' }),
  tlsCertificate: (): FetchFailure => ({ reason: 'tls_certificate', message: "The site's TLS certificate is not valid." }),
  connectionRefused: (): FetchFailure => ({ reason: 'connection_refused', message: 'The connection was refused.' }),
  unreachable: (): FetchFailure => ({ reason: 'unreachable', message: 'The site could not be reached.' }),
  emptyPage: (): FetchFailure => ({ reason: 'empty_page', message: 'The site sent an empty page.' }),
  tooLarge: (maxBytes: number): FetchFailure => ({ reason: 'too_large', message: `The image is larger than ${size(maxBytes)}.` }),
  undecodable: (): FetchFailure => ({ reason: 'undecodable', message: "The site's content encoding could not be decoded." }),
  fetchLoop: (): FetchFailure => ({ reason: 'fetch_loop', message: 'Requests from LinkPeek itself are refused (fetch loop).' }),
  // A wall instead of the page (src/walls): what the site showed is named, so the caller knows a
  // browser would have passed where the preview could not.
  botCheck: (service: string): FetchFailure => ({ reason: 'bot_check', message: `The site showed a bot check (${service}) instead of the page.` }),
  consentWall: (hostname: string, page: 'consent' | 'login' = 'consent'): FetchFailure => ({
    reason: 'consent_wall',
    message: `The site sent LinkPeek to a ${page} page (${hostname}) instead of the page.`,
  }),
} as const;

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
