// The address guard: is this IP one LinkPeek may connect to? Applied to IP literals before any
// socket opens and, through guardLookup, to every address DNS returns, at the moment the socket
// connects, so a name that resolves to a public address once and to 127.0.0.1 the next time
// (DNS rebinding) cannot slip past.

import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ipLiteral } from '../ip-literal.js';
import { BLOCKED_RANGES } from './policy.js';

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

const blockedRanges = BLOCKED_RANGES.map(({ cidr, reason }) => ({ cidr, reason, range: ipaddr.parseCIDR(cidr) }));

/** Why `ip` is refused, or null when it is a public unicast address. Not an IP at all: refused. */
export function blockedReason(ip: string): string | null {
  const literal = ipLiteral(ip);
  if (literal === null) return 'not an IP address';
  let addr: Parsed;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:7f00:1) into the IPv4 it carries (127.0.0.1).
    addr = ipaddr.process(literal);
  } catch {
    return 'not an IP address';
  }
  for (const { cidr, reason, range } of blockedRanges) {
    if (addr.kind() === range[0].kind() && addr.match(range)) return `${cidr}: ${reason}`;
  }
  // Second net: ipaddr.js's own table of special ranges (only unicast is public).
  const kind = addr.range();
  return kind === 'unicast' ? null : `ipaddr.js range ${kind}`;
}

/** True only for addresses on the public internet (policy.ts BLOCKED_RANGES and ipaddr.js `unicast`). */
export function isPublicAddress(ip: string): boolean {
  return blockedReason(ip) === null;
}

/** Raised by the guarded lookup; fetcher.ts reports it as FetchFailed('blocked address'). */
export class BlockedAddressError extends Error {
  readonly code = 'ELINKPEEK_BLOCKED_ADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly why: string,
  ) {
    super(`${hostname} resolves to a blocked address (${why})`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * Wraps a resolver so that it fails when any address of a name is not public. The whole answer
 * is refused, not filtered: a name that mixes public and private records is an attack or a
 * misconfiguration. undici hands `lookup` to net/tls.connect, which call it with `all: true` when
 * Happy Eyeballs is on (Node 20's default) and without it otherwise; both forms are answered.
 */
export function guardLookup(resolve: LookupFunction = dns.lookup, isPublic: (ip: string) => boolean = isPublicAddress): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, result) => {
      if (err) return callback(err, '', 0);
      const addresses: LookupAddress[] = Array.isArray(result) ? result : [{ address: result, family: familyOf(result) }];
      const blocked = addresses.find((a) => !isPublic(a.address));
      if (blocked) {
        return callback(new BlockedAddressError(hostname, blocked.address, blockedReason(blocked.address) ?? 'test policy'), '', 0);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

function familyOf(ip: string): number {
  return ipaddr.IPv6.isValid(ip) && !ipaddr.IPv4.isValid(ip) ? 6 : 4;
}
