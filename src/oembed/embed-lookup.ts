// oEmbed as an enrichment step (docs/ARCHITECTURE.md "oEmbed"): `embed` of both variants comes
// from the known provider's endpoint when the page's URL is one of theirs, else (or when that
// endpoint gives nothing) from the endpoint the page's head declares. Within the enrichment
// budget like every enricher; an endpoint that fails, is slow or answers garbage leaves `embed`
// null and the answer as it was. The SPEC fields never take values from oEmbed.
// oembed/ builds on metadata/ (its clean-up of fields, its enricher type); the pipeline knows this
// step only as one of the enrichers it is given.

import type { FetchFailure } from '../failure-reasons.js';
import type { SafeFetch } from '../fetch/types.js';
import type { Enricher, EnrichmentInput } from '../metadata/enrichment.js';
import { discoveredEndpoint } from './discover.js';
import { fetchEmbed } from './fetch-embed.js';
import { ProviderTable, type OEmbedProvider } from './providers.js';

export interface EmbedLookupDeps {
  safeFetch: SafeFetch;
  /** The known providers (default: the committed registry, oembed/providers.json). Tests register their own. */
  providers?: readonly OEmbedProvider[];
}

export interface EmbedLookup {
  enricher: Enricher;
  /** MetadataPipelineDeps.embedStandsIn: may this failed page be answered from its provider's oEmbed? */
  standsIn: (target: URL, failure: FetchFailure) => boolean;
}

/**
 * Page failures an oEmbed answer may stand in for: the site answered, but not with a page we may
 * read (an error status, a bot check, a consent wall). The provider's endpoint, a different URL
 * made for machines, often answers all the same. A site that cannot be reached at all is not one.
 */
const STANDS_IN_FOR: ReadonlySet<string> = new Set(['http_status', 'bot_check', 'consent_wall']);

export function embedLookup({ safeFetch, providers }: EmbedLookupDeps): EmbedLookup {
  const table = new ProviderTable(providers);

  /** Where to ask, best first: the known provider (of the requested URL, else of the final one), then the page's link. */
  function endpointsOf({ target, finalUrl, tags }: EnrichmentInput): URL[] {
    const known = table.endpointFor(target) ?? (finalUrl.href === target.href ? null : table.endpointFor(finalUrl));
    const discovered = tags === null ? null : discoveredEndpoint(tags, finalUrl);
    if (known === null) return discovered === null ? [] : [discovered];
    return discovered === null || discovered.href === known.href ? [known] : [known, discovered];
  }

  return {
    enricher: async (input, signal) => {
      for (const endpoint of endpointsOf(input)) {
        const embed = await fetchEmbed(endpoint, { safeFetch, signal, client: input.client });
        if (embed !== null) {
          input.og.embed = embed;
          input.twitter.embed = { ...embed };
          return;
        }
        if (signal.aborted) return;
      }
    },
    standsIn: (target, failure) => STANDS_IN_FOR.has(failure.reason) && table.endpointFor(target) !== null,
  };
}
