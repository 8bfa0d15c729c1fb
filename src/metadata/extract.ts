// RawTags + prefer + page URL → Metadata: the rules table (rules.ts) applied through one
// normaliser per field (normalize.ts). Pure: no I/O, no clock. Enrichment (image probe, favicon
// probe, cors_safe, safety tags) happens later, elsewhere; fields it may fill are null here.

import type { ImageMetadata, Metadata } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { FIELD_LIMITS, normalizeIconSizes, normalizeMimeType, normalizeNumber, normalizeText, normalizeUrl } from './normalize.js';
import { FAVICON_TIERS, type Family, IMAGE_DETAIL_KEYS, type PageTags, indexTags, sourcesFor } from './rules.js';
import { EXTRA_SOURCES, indexExtraTags } from './extra-rules.js';
import { asUri } from '../uri.js';
import { boundRawMap } from './answer-bounds.js';
import { hrefWithoutFragment } from '../url-fragment.js';
import { normalizeAuthor, normalizeColor, normalizeDate, normalizeLang, normalizeSiteName } from './normalize-extra.js';

export interface ExtractOptions {
  /**
   * The URL the client asked for, when redirects led elsewhere: docs/SPEC.md makes it the last
   * fallback of `url`. Defaults to `pageUrl` (the final URL, used to resolve relative links).
   */
  requestedUrl?: URL;
  /** The response's Content-Language header: the last source of `lang`. */
  contentLanguage?: string | null;
}

type ExtraFields = Pick<Metadata, 'site_name' | 'lang' | 'author' | 'published_time' | 'theme_color'>;

/** Metadata of one scanned page. `safety_tags` is empty and `cors_safe` absent: enrichment adds them. */
export function extractMetadata(tags: RawTags, prefer: Family, pageUrl: URL, options: ExtractOptions = {}): Metadata {
  return fromIndex(readPage(tags, pageUrl, options), prefer, pageUrl, options);
}

/**
 * Both preferences of one scanned page, as the cache keeps them: the tags are indexed once, and
 * the two objects share their raw `og` and `twitter` maps (equal by definition, never changed).
 */
export function extractBoth(tags: RawTags, pageUrl: URL, options: ExtractOptions = {}): Record<Family, Metadata> {
  const page = readPage(tags, pageUrl, options);
  // Each object gets its own favicon: the image enrichment fills both in place.
  return { og: fromIndex(page, 'og', pageUrl, options), twitter: fromIndex(page, 'twitter', pageUrl, options, { ...page.favicon }) };
}

/** What a page's preferences share: its tags indexed, its URLs resolved once, the fields that do not depend on the preference. */
interface ReadPage {
  tags: PageTags;
  /** normalizeUrl against the page's base URL, each raw value parsed once: both preferences often resolve the same og:url or og:image. */
  resolve: (raw: string) => string | null;
  extra: ExtraFields;
  favicon: ImageMetadata;
}

function readPage(raw: RawTags, pageUrl: URL, options: ExtractOptions): ReadPage {
  const tags = indexTags(raw);
  const base = baseUrlOf(raw, pageUrl);
  const resolved = new Map<string, string | null>();
  const resolve = (href: string): string | null => {
    let url = resolved.get(href);
    if (url === undefined) resolved.set(href, (url = normalizeUrl(href, base)));
    return url;
  };
  return { tags, resolve, extra: extraFields(raw, tags, pageUrl, options), favicon: pickFavicon(tags, base, pageUrl) };
}

function fromIndex(page: ReadPage, prefer: Family, pageUrl: URL, options: ExtractOptions, favicon = page.favicon): Metadata {
  const first = (field: Parameters<typeof sourcesFor>[0], clean: (raw: string) => string | null) => firstClean(sourcesFor(field, prefer), page.tags, clean);
  return {
    title: first('title', (raw) => normalizeText(raw, FIELD_LIMITS.title)),
    description: first('description', (raw) => normalizeText(raw, FIELD_LIMITS.description)),
    url: first('url', page.resolve) ?? requestedFallback(pageUrl, options),
    image: pickImage(page.tags, prefer, page.resolve),
    type: first('type', (raw) => normalizeText(raw, FIELD_LIMITS.type)),
    favicon,
    og: boundRawMap(page.tags.og),
    twitter: boundRawMap(page.tags.twitter),
    safety_tags: [],
    ...page.extra,
    // Filled by the oEmbed enrichment.
    embed: null,
    fetched_url: fetchedUrl(pageUrl),
  };
}

/** The fields beyond docs/SPEC.md (extra-rules.ts): the same for both preferences. */
function extraFields(tags: RawTags, page: PageTags, pageUrl: URL, options: ExtractOptions): ExtraFields {
  const extra = indexExtraTags(tags, page.og, options.contentLanguage ?? null, pageUrl);
  return {
    site_name: firstClean(EXTRA_SOURCES.site_name, extra, normalizeSiteName),
    lang: firstClean(EXTRA_SOURCES.lang, extra, normalizeLang),
    author: firstClean(EXTRA_SOURCES.author, extra, normalizeAuthor),
    published_time: firstClean(EXTRA_SOURCES.published_time, extra, normalizeDate),
    theme_color: firstClean(EXTRA_SOURCES.theme_color, extra, normalizeColor),
  };
}

/**
 * The object for a response that is not HTML (docs/SPEC.md Metadata rule 2): nothing to read, so every
 * field is null but `url` (the requested URL) and `favicon` (the origin's /favicon.ico).
 */
export function emptyMetadata(pageUrl: URL, options: ExtractOptions = {}): Metadata {
  return {
    title: null,
    description: null,
    url: requestedFallback(pageUrl, options),
    image: emptyImage(null),
    type: null,
    favicon: emptyImage(defaultFavicon(pageUrl)),
    og: {},
    twitter: {},
    safety_tags: [],
    ...noAdditiveFields(),
    fetched_url: fetchedUrl(pageUrl),
  };
}

/**
 * `fetched_url`: the page URL (the final one, after redirects), the one address of the answer the
 * page cannot choose. Without its fragment, as `url`'s fallback, and written as a URI.
 */
function fetchedUrl(pageUrl: URL): string {
  return asUri(new URL(hrefWithoutFragment(pageUrl)));
}

/** The fields beyond docs/SPEC.md: a page that is not HTML has none of them. */
function noAdditiveFields(): ExtraFields & Pick<Metadata, 'embed'> {
  return { site_name: null, lang: null, author: null, published_time: null, theme_color: null, embed: null };
}

/**
 * The last fallback of `url` (docs/SPEC.md): the requested URL without its fragment. The fragment never
 * reaches the server, so it names no part of the resource (RFC 3986 3.5), and this fallback stands
 * in for a canonical link, which names the resource. It is also the one piece of a request that
 * would otherwise survive in the cached extraction (whose key drops it) and reach everyone who
 * later asks for the page: a token in `#access_token=…` must stay with the client that sent it.
 */
function requestedFallback(pageUrl: URL, options: ExtractOptions): string {
  const requested = new URL(hrefWithoutFragment(options.requestedUrl ?? pageUrl));
  // Over FIELD_LIMITS.url once written as a URI (a 4,096-character request full of `|`), it is
  // still the one value `url` must have.
  return normalizeUrl(requested.href, pageUrl) ?? asUri(requested);
}

/**
 * The URL relative links resolve against: the first `<base href>`, itself resolved against the
 * page URL, when it gives an http(s) URL; otherwise the page URL (HTML "document base URL").
 */
export function baseUrlOf(tags: RawTags, pageUrl: URL): URL {
  const base = normalizeUrl(tags.baseHref, pageUrl);
  return base === null ? pageUrl : new URL(base);
}

/**
 * The preview image: the first source that resolves to an http(s) URL. Its type, width, height and
 * size come from the first og:image:type/width/height/size; null ones are for the image probe.
 */
function pickImage(page: PageTags, prefer: Family, resolve: (raw: string) => string | null): ImageMetadata {
  const url = firstClean(sourcesFor('image', prefer), page, resolve);
  if (url === null) return emptyImage(null);
  return {
    url,
    type: normalizeMimeType(page.og[IMAGE_DETAIL_KEYS.type]),
    width: normalizeNumber(page.og[IMAGE_DETAIL_KEYS.width]),
    height: normalizeNumber(page.og[IMAGE_DETAIL_KEYS.height]),
    size: normalizeNumber(page.og[IMAGE_DETAIL_KEYS.size]),
  };
}

/**
 * The favicon: the first tier with a link whose href resolves to http(s) (`data:` icons are
 * skipped: only http(s) URLs come out), else /favicon.ico of the page's origin. Type and size
 * come from the link's `type` and `sizes` when they are well formed.
 */
export function pickFavicon(page: PageTags, base: URL, pageUrl: URL): ImageMetadata {
  for (const tier of FAVICON_TIERS) {
    for (const link of page.links) {
      if (!tier.matches(link)) continue;
      const url = normalizeUrl(link.href, base);
      if (url === null) continue;
      const { width, height } = normalizeIconSizes(link.sizes);
      return { url, type: normalizeMimeType(link.type), width, height, size: null };
    }
  }
  return emptyImage(defaultFavicon(pageUrl));
}

/** `/favicon.ico` at the page's origin: the browsers' own last resort. */
export function defaultFavicon(pageUrl: URL): string {
  return new URL('/favicon.ico', pageUrl.origin).href;
}

function emptyImage(url: string | null): ImageMetadata {
  return { url, type: null, width: null, height: null, size: null };
}

/** The first source's value that survives `clean`: the rules tables' one reading. */
function firstClean<P>(sources: readonly { read(page: P): string | null }[], page: P, clean: (raw: string) => string | null): string | null {
  for (const source of sources) {
    const raw = source.read(page);
    if (raw === null) continue;
    const value = clean(raw);
    if (value !== null) return value;
  }
  return null;
}
