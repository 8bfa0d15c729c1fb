// TRUST_PROXY: whose X-Forwarded-For is believed. Like Express's `trust proxy`: a list of the
// proxies' addresses and CIDRs (and the names loopback, linklocal, uniquelocal); the client is
// the first address, read from the right of the chain (the socket's peer, then each
// X-Forwarded-For entry from the last), that is not one of them. A request whose peer is not a
// listed proxy came straight to the instance: its socket address is the client, whatever its
// headers say. `true` keeps its older meaning, one proxy in front whatever its address: the last
// entry is believed, so it is safe only when the instance cannot be reached but through it.

import ipaddr from 'ipaddr.js';

/** false: headers ignored; true: one proxy, any address; a list: exactly these proxies. */
export type TrustProxySetting = boolean | readonly string[];

/** Express's names for common ranges, as ipaddr.js calls them (IPv4 and IPv6). */
const NAMED_RANGES: Record<string, readonly string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * The setting from its text: `true`/`false` (and their spellings of read.bool), or a list of
 * addresses, CIDRs and range names separated by commas. Returns an error message for anything else.
 */
export function parseTrustProxy(text: string): TrustProxySetting | { error: string } {
  const lower = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off', ''].includes(lower)) return false;
  const ranges: string[] = [];
  for (const entry of lower.split(',').map((e) => e.trim())) {
    if (entry in NAMED_RANGES) ranges.push(...NAMED_RANGES[entry]!);
    else if (asRange(entry) !== null) ranges.push(entry);
    else return { error: `"${entry}" is not true, false, an address, a CIDR or one of ${Object.keys(NAMED_RANGES).join(', ')}` };
  }
  return ranges;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address (a range of one) or a CIDR, IPv4-mapped IPv6 unwrapped; null when neither. */
function asRange(entry: string): Range | null {
  try {
    if (entry.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(entry);
      return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
        ? [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96]
        : [addr, bits];
    }
    const addr = ipaddr.process(entry);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

export class ProxyTrust {
  private readonly ranges: Range[];

  constructor(readonly setting: TrustProxySetting) {
    this.ranges = typeof setting === 'boolean' ? [] : setting.map((r) => asRange(r)!);
  }

  /** Whether X-Forwarded-For is read at all. */
  get enabled(): boolean {
    return this.setting !== false;
  }

  /** Whether the proxy at `address` (a canonical address) is believed. */
  trusts(address: string): boolean {
    if (this.setting === true) return true;
    if (this.ranges.length === 0) return false;
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = ipaddr.process(address);
    } catch {
      return false;
    }
    return this.ranges.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
  }

  /** With `true`, only the last entry is read (one proxy); with a list, as many as are trusted. */
  get hops(): number {
    return this.setting === true ? 1 : Infinity;
  }
}
