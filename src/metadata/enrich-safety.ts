// Safety tags as an enrichment step: the providers judge the page that answered (its
// final URL and head) and, when redirects led elsewhere, the URL the caller asked for too, since
// a clean-looking link that redirects to a listed host is still that host's.

import type { SafetyCheck } from '../safety/index.js';
import { inEnumOrder } from '../safety/provider.js';
import type { Enricher } from './enrichment.js';

export function safetyEnricher(safety: SafetyCheck): Enricher {
  return async (input, signal) => {
    const checks = [safety.check({ url: input.finalUrl, tags: input.tags }, signal)];
    if (input.finalUrl.host !== input.target.host) checks.push(safety.check({ url: input.target, tags: null }, signal));
    // The enum order, so the answer does not depend on which check was faster.
    const tags = inEnumOrder((await Promise.all(checks)).flat());
    input.og.safety_tags = tags;
    input.twitter.safety_tags = [...tags];
  };
}
