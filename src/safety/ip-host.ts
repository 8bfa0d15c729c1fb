// suspicious_domain when the URL names an IP address instead of a domain (docs/SPEC.md SafetyTag:
// "an IP address as URL"). Real sites are reached by name; bare addresses are typical of
// throwaway hosting, phishing kits and malware drops.

import { isIpLiteral } from '../ip-literal.js';
import type { SafetyProvider } from './provider.js';

export const ipHostProvider: SafetyProvider = {
  name: 'ip-host',
  check: ({ url }) => (isIpLiteral(url.hostname) ? ['suspicious_domain'] : []),
};
