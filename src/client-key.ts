// Who counts as one client, for the rate limit (api/rate-limit.ts) and the fair fetch shares
// (fetch/charge.ts), so that what costs an abuser nothing to multiply counts once.

import ipaddr from 'ipaddr.js';
import { memoized } from './memo.js';

export interface Client {
  /** The address in one canonical spelling (`::ffff:127.0.0.2` is `127.0.0.2`): what logs show. */
  ip: string;
  /** What budgets and shares are counted under: the IPv4 address, or the IPv6 /64. */
  key: string;
  /**
   * The IPv6 /48 the /64 belongs to, counted under a second, larger budget (api/rate-limit.ts);
   * null for IPv4. A /48 is what one site is given (RFC 6177 3): 65,536 /64s, each of which
   * would otherwise be a budget of its own.
   */
  site: string | null;
}

/**
 * A client from its address. One IPv6 subscriber is routinely given a whole /64 (RFC 6177), so
 * its addresses are one client; an IPv4-mapped address is the IPv4 client it maps.
 */
export function clientOf(address: string): Client {
  try {
    const addr = ipaddr.process(address);
    const ip = addr.toString();
    if (addr.kind() === 'ipv4') return { ip, key: ip, site: null };
    const hex = (addr as ipaddr.IPv6).parts.map((p) => p.toString(16));
    return { ip, key: `${hex.slice(0, 4).join(':')}::/64`, site: `${hex.slice(0, 3).join(':')}::/48` };
  } catch {
    return { ip: address, key: address, site: null }; // not an address (a unix socket): the string itself
  }
}

/**
 * The key a client's address is counted under (clientOf), kept for the next fetch of the same
 * client: a busy instance sees the same clients over and over (1,024 addresses kept).
 */
export const clientKey: (address: string) => string = memoized((address) => clientOf(address).key, 1024);
