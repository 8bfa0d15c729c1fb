// What the resolver makes of c-ares' answers and errors: the outcome a query is counted as, the
// error a failed name carries, and which names are never sent to a nameserver.

import { LOCALHOST_NAMES, LOCALHOST_SUFFIX } from './policy.js';
import { withoutTraces } from './without-traces.js';

/** How a query to the nameservers ended (metrics label); `unreachable`: no nameserver could be reached (connection refused). */
export type DnsOutcome = 'answered' | 'nxdomain' | 'nodata' | 'servfail' | 'refused' | 'timeout' | 'unreachable' | 'error';

/** An error carrying Node's dns error code (ENOTFOUND, ENODATA, ESERVFAIL, ETIMEOUT, …) and the name. */
export type DnsError = Error & { code: string; hostname: string };

export type Settled = { records: Array<{ address: string; ttl: number }> } | { error: DnsError };

export function settle(p: Promise<Array<{ address: string; ttl: number }>>): Promise<Settled> {
  return p.then(
    (records) => ({ records }),
    (error: DnsError) => ({ error }),
  );
}

export function isLocalhost(name: string): boolean {
  return LOCALHOST_NAMES.includes(name) || name.endsWith(LOCALHOST_SUFFIX);
}

/** A failed name is an answer the pipeline expects (a cached one is given again on every page naming the host): it carries no trace. */
export function dnsError(code: string, hostname: string): DnsError {
  return withoutTraces(() => Object.assign(new Error(`DNS lookup of ${hostname} failed: ${code}`), { code, hostname }));
}

/** RFC 1035 2.3.4: a name of at most 253 characters, labels of 1–63. Longer ones are never sent. */
export function isValidName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => label.length > 0 && label.length <= 63);
}

export function outcomeOf(code: string): DnsOutcome {
  switch (code) {
    case 'ENOTFOUND':
      return 'nxdomain';
    case 'ENODATA':
      return 'nodata';
    case 'ESERVFAIL':
      return 'servfail';
    case 'EREFUSED':
      return 'refused';
    case 'ETIMEOUT':
      return 'timeout';
    case 'ECONNREFUSED':
      return 'unreachable';
    default:
      return 'error';
  }
}
