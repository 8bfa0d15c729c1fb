// Who an upstream fetch is charged to, for the fair shares of limiter.ts: the client that asked
// for it and the destination it goes to. Each key is chosen so that what costs an abuser nothing
// to multiply counts as one.

import { parse } from 'tldts';
import { clientKey } from '../client-key.js';
import type { FetchCharge } from './limiter.js';
import { memoized } from '../memo.js';

/**
 * A destination's key: the registrable domain of its host name (private suffixes included, so
 * each app on herokuapp.com or each cloudfront.net distribution is its own), or the IP address of
 * an IP literal. A wildcard DNS record gives an attacker any number of subdomains for free; they
 * are one destination. The port is left out: it is the same machine.
 */
function hostKey(url: URL): string {
  return keyOfHost(url.hostname);
}

/** hostKey of a host name, kept for the next fetch there (a page and its embeds, a site asked for again). */
const keyOfHost = memoized((hostname) => {
  const parsed = parse(hostname, { allowPrivateDomains: true });
  return parsed.isIp ? (parsed.hostname ?? hostname) : (parsed.domain ?? hostname);
}, 1024);

/** The charge of a fetch of `url` on behalf of the client at `ip` (none: the service's own). */
export function chargeOf(url: URL, ip: string | undefined): FetchCharge {
  return { client: chargedClient(ip), host: hostKey(url) };
}

/** The key work for the client at `ip` is charged to; null for the service's own. */
export function chargedClient(ip: string | undefined): string | null {
  return ip === undefined ? null : clientKey(ip);
}
