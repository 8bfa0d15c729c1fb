// Who an upstream fetch is charged to, for the fair shares of limiter.ts: the client that asked
// for it and the destination it goes to. Each key is chosen so that what costs an abuser nothing
// to multiply counts as one.

import { parse } from 'tldts';
import { clientKey } from '../client-key.js';
import type { FetchCharge } from './limiter.js';

/** Host names whose key is kept (hostKey is a pure function of the name): a page and its embeds, a site asked for again. */
const HOST_KEYS_KEPT = 1024;
const hostKeys = new Map<string, string>();

/**
 * A destination's key: the registrable domain of its host name (private suffixes included, so
 * each app on herokuapp.com or each cloudfront.net distribution is its own), or the IP address of
 * an IP literal. A wildcard DNS record gives an attacker any number of subdomains for free; they
 * are one destination. The port is left out: it is the same machine.
 */
function hostKey(url: URL): string {
  const hostname = url.hostname;
  let key = hostKeys.get(hostname);
  if (key === undefined) {
    const parsed = parse(hostname, { allowPrivateDomains: true });
    key = parsed.isIp ? (parsed.hostname ?? hostname) : (parsed.domain ?? hostname);
    if (hostKeys.size >= HOST_KEYS_KEPT) hostKeys.clear();
    hostKeys.set(hostname, key);
  }
  return key;
}

/** The charge of a fetch of `url` on behalf of the client at `ip` (none: the service's own). */
export function chargeOf(url: URL, ip: string | undefined): FetchCharge {
  return { client: ip === undefined ? null : clientKey(ip), host: hostKey(url) };
}
