// Domain lists for the adult and threat providers: plain domain-per-line files or
// hosts files (`0.0.0.0 evil.example`), `#` comments. A host is listed when it or any parent
// domain is in the list, so `evil.example` covers `www.evil.example` but not `notevil.example`.

import { domainToASCII } from 'node:url';
import { isIpLiteral } from '../ip-literal.js';

/**
 * Names that hosts files map to themselves for the machine's own sake; they are not verdicts on
 * a web site (StevenBlack/hosts and most blocklists open with these lines).
 */
const HOSTS_FILE_HOUSEKEEPING: ReadonlySet<string> = new Set([
  'localhost',
  'localhost.localdomain',
  'local',
  'broadcasthost',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-mcastprefix',
  'ip6-allnodes',
  'ip6-allrouters',
  'ip6-allhosts',
  '0.0.0.0',
]);

export interface ParsedDomainList {
  domains: Set<string>;
  /** Lines that held something but no usable domain (logged once per load, never fatal). */
  rejected: number;
}

/** Lower-case ASCII (punycode) form without a trailing dot, or null when it is no domain name. */
export function normaliseDomain(raw: string): string | null {
  // `*.evil.example` (a wildcard some lists write) means the same as `evil.example` here.
  const trimmed = raw.trim().replace(/\.$/, '').replace(/^\*\./, '');
  // IP literals are not matched by these lists (hosts files only name domains).
  if (trimmed === '' || isIpLiteral(trimmed)) return null;
  // domainToASCII lower-cases, applies IDNA (bücher.example -> xn--bcher-kva.example) and
  // answers '' for what cannot be a host name.
  const ascii = domainToASCII(trimmed);
  // A single label ("com", "localhost") would list a whole top-level domain or the machine
  // itself: refused as a mistake.
  if (ascii === '' || !ascii.includes('.') || ascii.length > 253) return null;
  // Host-name labels (RFC 1123), plus `_` which real DNS names and blocklists carry.
  return ascii.split('.').every((label) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label)) ? ascii : null;
}

export function parseDomainList(text: string): ParsedDomainList {
  const domains = new Set<string>();
  let rejected = 0;
  for (const line of text.split(/\r?\n/)) {
    const content = line.replace(/#.*/, '').trim();
    if (content === '') continue;
    const fields = content.split(/\s+/);
    // Hosts format: an address, then one or more names. Plain format: one name.
    const names = fields.length > 1 && isIpLiteral(fields[0] ?? '') ? fields.slice(1) : fields.slice(0, 1);
    let usable = 0;
    for (const name of names) {
      const domain = normaliseDomain(name);
      if (domain === null || HOSTS_FILE_HOUSEKEEPING.has(domain)) continue;
      domains.add(domain);
      usable++;
    }
    if (usable === 0 && !names.every((name) => HOSTS_FILE_HOUSEKEEPING.has(name.toLowerCase()))) rejected++;
  }
  return { domains, rejected };
}

/** The listed entry that covers `host` (the host itself or a parent domain), or null. */
export function listedAncestor(domains: ReadonlySet<string>, host: string): string | null {
  let candidate = host.toLowerCase().replace(/\.$/, '');
  // An IP address has no parent domains (1.2.3.4 is not "under" 2.3.4).
  if (candidate === '' || isIpLiteral(candidate)) return null;
  for (;;) {
    if (domains.has(candidate)) return candidate;
    const dot = candidate.indexOf('.');
    if (dot < 0) return null;
    candidate = candidate.slice(dot + 1);
  }
}
