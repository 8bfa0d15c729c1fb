// Safety tags as an enrichment step (issue 6): the providers judge the page that answered (its
// final URL and head) and, when redirects led elsewhere, the URL the caller asked for too, since
// a clean-looking link that redirects to a listed host is still that host's.

import type { SafetyTag } from '../../generated/types.gen.js';
import type { SafetyCheck } from '../safety/index.js';
import type { Enricher } from './service.js';

/** SPEC.md SafetyTag enumeration order, so the answer does not depend on which provider was faster. */
const ORDER: readonly SafetyTag[] = ['adult', 'security_threat', 'suspicious_domain'];

export function safetyEnricher(safety: SafetyCheck): Enricher {
  return async (input, signal) => {
    const checks = [safety.check({ url: input.finalUrl, tags: input.tags }, signal)];
    if (input.finalUrl.host !== input.target.host) checks.push(safety.check({ url: input.target, tags: null }, signal));
    const found = new Set((await Promise.all(checks)).flat());
    const tags = ORDER.filter((tag) => found.has(tag));
    input.og.safety_tags = tags;
    input.twitter.safety_tags = [...tags];
  };
}
