// suspicious_domain when the URL names an IP address instead of a domain (SPEC.md SafetyTag:
// "an IP address as URL"). Real sites are reached by name; bare addresses are typical of
// throwaway hosting, phishing kits and malware drops.

import net from 'node:net';
import type { SafetyProvider } from './provider.js';

/**
 * True for IPv4 and IPv6 literals. The WHATWG URL parser has already turned every IPv4 spelling
 * (0x7f.1, 2130706433, 0177.0.0.1) into dotted decimal, and writes IPv6 in brackets.
 */
export function isIpHost(url: URL): boolean {
  return net.isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

export const ipHostProvider: SafetyProvider = {
  name: 'ip-host',
  check: ({ url }) => (isIpHost(url) ? ['suspicious_domain'] : []),
};
