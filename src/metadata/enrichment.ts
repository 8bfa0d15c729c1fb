// What runs after a page's rules: the enrichers (image and favicon probes, oEmbed, safety tags), all
// at once within their budget. They need the network, so they run on the event loop, not in a scan
// worker.

import type { Metadata } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';

/** What an enricher sees and may fill in: both variants of one page, before they are cached. */
export interface EnrichmentInput {
  target: URL;
  /** The IP of the client whose request started this extraction: its fetches are charged to it. */
  client: string | undefined;
  /** The final URL after redirects. */
  finalUrl: URL;
  /** The page's head tags; null for a response that is not HTML. */
  tags: RawTags | null;
  og: Metadata;
  twitter: Metadata;
}

/**
 * A step that adds to a fresh extraction (image and favicon probes, safety tags). It must stop
 * when `signal` aborts (the enrichment budget, ENRICH_BUDGET_MS); whatever it set by then stays.
 */
export type Enricher = (input: EnrichmentInput, signal: AbortSignal) => Promise<void>;

export interface EnrichmentDeps {
  enrichers?: Enricher[];
  /** Told of an enricher that failed (the extraction is still answered). */
  onEnricherError?: (err: unknown) => void;
}

/**
 * Every enricher at once, and never longer than `budgetMs` (ENRICH_BUDGET_MS, or less when the
 * request deadline is nearer): the answer does not wait past it.
 * Resolves true when every enricher settled within the budget, false when some still run.
 */
export async function runEnrichers(input: EnrichmentInput, deps: EnrichmentDeps, budgetMs: number): Promise<boolean> {
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
