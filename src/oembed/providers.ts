// Known oEmbed providers: for a URL of one of them, the provider's endpoint is asked directly
// (docs/ARCHITECTURE.md "oEmbed"). The list is oembed.com's registry, compacted into the committed
// providers.json by `npm run update:oembed` (scripts/update-oembed-providers.mjs): loading it needs
// no network. Its order decides: a URL that matches several providers takes the first.
//
// The table is compiled once. Schemes are indexed by host, so a lookup tests only the schemes
// that can match its host (usually none, a handful for a provider's own site), in list order:
//   - an exact host ("youtu.be") under that host;
//   - "*.example.com" under "example.com", found by walking up the URL's host a label at a time;
//   - any other wildcard host ("*.*.flickr.com", "www.example.*") in a short list tried always.

import { hrefWithoutFragment } from '../url-fragment.js';
import registry from './providers.json' with { type: 'json' };
import { compileScheme, matchable, schemeMatches, type UrlScheme } from './url-scheme.js';

/** One endpoint of the registry: where to ask, and the URL schemes it answers for. */
export interface OEmbedProvider {
  endpoint: string;
  schemes: readonly string[];
}

/** The committed registry (providers.json), in its order. */
export const KNOWN_PROVIDERS: readonly OEmbedProvider[] = registry.providers;

interface Entry {
  /** Position in the list order: the lowest matching one wins. */
  order: number;
  scheme: UrlScheme;
  endpoint: URL;
}

/** A host's labels looked up at most, from the right: the registry's wildcard hosts have four at most. */
const MAX_HOST_LABELS = 16;

export class ProviderTable {
  private readonly exact = new Map<string, Entry[]>();
  private readonly subdomains = new Map<string, Entry[]>();
  private readonly loose: Entry[] = [];

  constructor(providers: readonly OEmbedProvider[] = KNOWN_PROVIDERS) {
    let order = 0;
    for (const provider of providers) {
      const endpoint = URL.parse(provider.endpoint);
      if (endpoint === null || (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:')) continue;
      for (const raw of provider.schemes) {
        const scheme = compileScheme(raw);
        if (scheme === null) continue;
        const entry: Entry = { order: order++, scheme, endpoint };
        if (scheme.host.length === 1) add(this.exact, scheme.host[0]!, entry);
        else if (scheme.bareHost !== null) add(this.subdomains, scheme.bareHost, entry);
        else this.loose.push(entry);
      }
    }
  }

  /**
   * The request to make for `page` when it is a known provider's (the endpoint with `format=json`
   * and `url` = the page without its fragment), else null.
   */
  endpointFor(page: URL): URL | null {
    if (page.protocol !== 'http:' && page.protocol !== 'https:') return null;
    const { host, rest } = matchable(page);
    let best: Entry | null = null;
    for (const entry of this.candidates(host)) {
      if ((best === null || entry.order < best.order) && schemeMatches(entry.scheme, host, rest)) best = entry;
    }
    if (best === null) return null;
    const request = new URL(best.endpoint.href);
    request.searchParams.set('format', 'json');
    request.searchParams.set('url', hrefWithoutFragment(page));
    return request;
  }

  private *candidates(host: string): Generator<Entry> {
    yield* this.exact.get(host) ?? [];
    // "a.b.example.com" → itself, "b.example.com", "example.com", "com" (a port stays on the last
    // label, as it does in the index); only the last MAX_HOST_LABELS labels of a longer name.
    const labels = host.split('.');
    for (let i = Math.max(0, labels.length - MAX_HOST_LABELS); i < labels.length; i++) {
      yield* this.subdomains.get(labels.slice(i).join('.')) ?? [];
    }
    yield* this.loose;
  }
}

function add(index: Map<string, Entry[]>, key: string, entry: Entry): void {
  const list = index.get(key);
  if (list) list.push(entry);
  else index.set(key, [entry]);
}
