// Does a host name an IP address rather than a domain? The fetch guard checks such hosts itself
// (undici skips the DNS lookup for them, as net.connect does for whatever net.isIP accepts), and
// the safety checks treat them as a signal and never as a listed domain.

import net from 'node:net';

/**
 * The IP address a host names literally ("127.0.0.1"; "[::1]" and "::1" → "::1"), or null for a
 * domain name. Only the canonical spellings count: the WHATWG URL parser has already turned every
 * IPv4 spelling (127.1, 0x7f.1, 2130706433, 0177.0.0.1) into dotted decimal, and a spelling that
 * is not canonical is a name to resolve, not an address.
 */
export function ipLiteral(host: string): string | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return net.isIP(bare) === 0 ? null : bare;
}

/** True when `host` is an IPv4 or IPv6 literal (brackets allowed). */
export function isIpLiteral(host: string): boolean {
  return ipLiteral(host) !== null;
}
