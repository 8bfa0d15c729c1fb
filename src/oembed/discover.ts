// oEmbed discovery (oembed.com section 4): a page names its own oEmbed answer with
// `<link rel="alternate" type="application/json+oembed" href="…">` in its head. Some sites write
// `text/json+oembed`, which is read too; the XML form (`text/xml+oembed`) is not: LinkPeek reads
// JSON oEmbed only. The first such link whose href resolves to an http(s) URL wins.

import type { RawTags } from '../../wasm-parser/types.js';
import { baseUrlOf } from '../metadata/extract.js';
import { normalizeUrl } from '../metadata/normalize.js';
import { hasRel } from '../metadata/rules.js';
import { mediaTypeEssence } from '../media-type.js';

const DISCOVERY_TYPES: ReadonlySet<string> = new Set(['application/json+oembed', 'text/json+oembed']);

/** The JSON oEmbed endpoint a page's head declares, resolved against its base URL; null when none. */
export function discoveredEndpoint(tags: RawTags, pageUrl: URL): URL | null {
  const base = baseUrlOf(tags, pageUrl);
  for (const link of tags.links) {
    if (!hasRel(link, 'alternate') || !DISCOVERY_TYPES.has(mediaTypeEssence(link.type) ?? '')) continue;
    const href = normalizeUrl(link.href, base);
    if (href !== null) return new URL(href);
  }
  return null;
}
