// The steps around a page's scan that are not the scan: telling the resolver about image hosts
// as the head names them, and running the enrichers within their budget.

import type { EnrichmentInput, MetadataPipelineDeps } from './service.js';

/** Hosts prefetched per page at most: the probes use three URLs; a page listing hundreds gets no more. */
const PREFETCH_HOSTS = 4;

/** Passes the hosts of a page's image URLs (resolved against the page URL) to `prefetch`, a few distinct ones at most. */
export function hostsOf(page: URL, prefetch: (hostname: string) => void): (rawUrl: string) => void {
  const seen = new Set<string>([page.hostname]);
  return (rawUrl) => {
    if (seen.size > PREFETCH_HOSTS) return;
    const url = URL.parse(rawUrl.trim(), page);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || seen.has(url.hostname)) return;
    seen.add(url.hostname);
    prefetch(url.hostname);
  };
}

/**
 * Every enricher at once, and never longer than `budgetMs` (ENRICH_BUDGET_MS, or less when the
 * request deadline is nearer): the answer does not wait past it.
 * Resolves true when every enricher settled within the budget, false when some still run.
 */
export async function runEnrichers(
  input: EnrichmentInput,
  deps: Pick<MetadataPipelineDeps, 'enrichers' | 'onEnricherError'>,
  budgetMs: number,
): Promise<boolean> {
  const enrichers = deps.enrichers ?? [];
  if (enrichers.length === 0) return true;
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new Error('enrichment budget spent')), budgetMs);
  // Either every enricher has settled (nothing left to stop) or the budget's abort told those
  // still running to stop: no second abort, whose error and stack trace would be built for nothing.
  try {
    const all = Promise.allSettled(enrichers.map((enrich) => enrich(input, budget.signal)));
    const over = new Promise<void>((resolve) => budget.signal.addEventListener('abort', () => resolve(), { once: true }));
    const settled = await Promise.race([all, over]);
    if (!Array.isArray(settled)) return false;
    for (const s of settled) if (s.status === 'rejected') deps.onEnricherError?.(s.reason);
    return true;
  } finally {
    clearTimeout(timer);
  }
}
