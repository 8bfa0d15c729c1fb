// What a 422 tells the caller about a page that could not be fetched: a machine-readable `reason`
// (the enum of openapi.yaml's ApiError.reason) and a message a person can act on. One entry per
// reason, built here and nowhere else, so every message of one reason reads the same. FetchFailed
// (errors.ts) carries one; fetch/, walls/, the proxy and the cache choose or keep them.

import type { FailureReason } from '../generated/types.gen.js';

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
