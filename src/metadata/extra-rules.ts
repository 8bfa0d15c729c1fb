// The rules table of the fields beyond docs/SPEC.md (openapi.yaml's Metadata descriptions are
// their contract): for each field, one ordered list of sources; the first source whose value
// survives the field's normaliser (normalize-extra.ts) wins. Read as rules.ts reads the SPEC
// fields: keys of `name=` and `property=` are one namespace, lower-cased; the first non-empty
// content of a key in document order counts; an empty one is absent. `prefer` plays no part.

import type { RawMeta, RawTags } from '../../wasm-parser/types.js';
import { type JsonLdFacts, PageJsonLd } from './json-ld.js';
import { siteNameFromTitle } from './title-site-name.js';

/** What the extra sources read: the page's tags indexed once, its JSON-LD read when first asked for. */
export interface ExtraPage {
  /** og:* key → first non-empty content (rules.ts's raw og map). */
  og: Record<string, string>;
  /** `name=` / `property=` key (lower-cased) → first non-empty content, for META_KEYS only. */
  metas: Map<string, string>;
  /** `itemprop=` (lower-cased) → first non-empty content, for ITEMPROPS only. */
  itemprops: Map<string, string>;
  /** Every `<meta name=theme-color>` with a content, in document order. */
  themeColors: RawMeta[];
  htmlLang: string | null;
  /** The response's Content-Language header. */
  contentLanguage: string | null;
  /** The first `<title>` text, raw. */
  htmlTitle: string | null;
  /** The URL the page was fetched from (after redirects); null when unknown. */
  pageUrl: URL | null;
  /** The head's JSON-LD, parsed on first use (most pages never need it). */
  jsonLd: PageJsonLd;
}

export interface ExtraSource {
  /** The tag it reads, for tests and reports. */
  label: string;
  read(page: ExtraPage): string | null;
}

/** The keys the meta sources below read, gathered as the table is built: the index keeps only these. */
const META_KEYS = new Set<string>();
const ITEMPROPS = new Set<string>();

const meta = (key: string): ExtraSource => {
  META_KEYS.add(key);
  return { label: `<meta ${key}>`, read: (page) => page.metas.get(key) ?? null };
};
const og = (key: string): ExtraSource => ({ label: key, read: (page) => nonEmpty(page.og[key]) });
const itemprop = (key: string): ExtraSource => {
  ITEMPROPS.add(key);
  return { label: `<meta itemprop=${key}>`, read: (page) => page.itemprops.get(key) ?? null };
};
const jsonLd = (label: string, fact: keyof JsonLdFacts): ExtraSource => ({
  label: `JSON-LD ${label}`,
  read: (page) => page.jsonLd.fact(fact),
});

/** `<meta name=theme-color>` whose `media` is the light color scheme (whitespace and case aside). */
const LIGHT_SCHEME = /^\(\s*prefers-color-scheme\s*:\s*light\s*\)$/i;

/**
 * The sources of each field, best first. Beyond the contract's sources, each list ends with the
 * meta tags that real pages use for the same thing, after the standard ones
 * (bench/results/page-shapes.md).
 */
export const EXTRA_SOURCES = {
  site_name: [
    og('og:site_name'),
    meta('application-name'),
    jsonLd('publisher.name', 'publisherName'),
    meta('publisher'),
    // The name a site gives itself for a home-screen icon, then its native apps' names.
    meta('apple-mobile-web-app-title'),
    meta('twitter:app:name:iphone'),
    meta('twitter:app:name:ipad'),
    meta('twitter:app:name:googleplay'),
    meta('al:ios:app_name'),
    meta('al:iphone:app_name'),
    meta('al:android:app_name'),
    // Last: the `<title>`'s last (else first) part, only when it spells the page's host.
    { label: '<title> part naming the host', read: (page) => siteNameFromTitle(page.htmlTitle, page.pageUrl) },
  ],
  lang: [
    { label: '<html lang>', read: (page) => nonEmpty(page.htmlLang) },
    // og:locale is `language_TERRITORY`: with a hyphen it is the BCP 47 tag (`en_US` → `en-US`).
    { label: 'og:locale', read: (page) => nonEmpty(page.og['og:locale'])?.replaceAll('_', '-') ?? null },
    // HTML's "pragma-set default language": the page's own copy of the header, which follows it.
    meta('content-language'),
    { label: 'Content-Language header', read: (page) => nonEmpty(page.contentLanguage) },
  ],
  author: [
    meta('author'),
    // A profile URL more often than a name; the author normaliser skips URLs.
    meta('article:author'),
    // The same tag with a redundant `og:` prefix (BBC News, Reuters, Naver blogs): right after it.
    meta('og:article:author'),
    jsonLd('author.name', 'author'),
    meta('article:author_name'),
    itemprop('author'),
    meta('parsely-author'),
    meta('sailthru.author'),
    // The New York Times' byline ("By …").
    meta('byl'),
    meta('dc.creator'),
    meta('citation_author'),
  ],
  published_time: [
    meta('article:published_time'),
    jsonLd('datePublished', 'datePublished'),
    // A video's or a photo's page (Vimeo, YouTube, Instagram) dates its work by its upload.
    jsonLd('uploadDate', 'uploadDate'),
    itemprop('datepublished'),
    meta('og:published_time'),
    meta('og:article:published_time'),
    meta('article:published'),
    meta('parsely-pub-date'),
    meta('sailthru.date'),
    meta('dc.date.issued'),
    meta('dcterms.issued'),
    meta('pubdate'),
    meta('publishdate'),
    meta('dc.date'),
    // The scholarly and music tags come after every tag above: where a page has both, those
    // state the page's own date, and these are often coarser (bioRxiv's citation_publication_date
    // is 2020/01/01 beside a DC.date of 2020-03-27; Nature's is the month, `2021/08`).
    // Highwire Press / Google Scholar: the work's publication date, by that name, first…
    meta('citation_publication_date'),
    // …then the older Highwire name for the same date (arXiv and PLOS still write it).
    meta('citation_date'),
    // Open Graph music (album, song, episode pages): when the work was released, the nearest the
    // page comes to a publication date; it names the release, not the publication, so after both.
    meta('music:release_date'),
    // No standard's key, a site's own (Engadget's): its meaning is the name's only, so after the
    // keys that some vocabulary defines.
    meta('published_at'),
    // Highwire: when this version went online, which may be years after the work appeared
    // (arXiv's is its latest revision's: 2023/08/02 for a paper of 2017/06/12): the weakest.
    meta('citation_online_date'),
    // When the work was made: for an article, as near as the page comes to saying when it appeared.
    jsonLd('dateCreated', 'dateCreated'),
    // A page's date of no stated kind, often when it was last changed or even rendered (a date
    // days after the article's own, a build's time beside the same og:updated_time): the weakest
    // of all, read only when nothing above gives a date.
    meta('date'),
  ],
  theme_color: [
    { label: '<meta name=theme-color> without media', read: (page) => themeColor(page, (media) => media === '') },
    { label: '<meta name=theme-color media="(prefers-color-scheme: light)">', read: (page) => themeColor(page, (media) => LIGHT_SCHEME.test(media)) },
  ],
} satisfies Record<string, ExtraSource[]>;

/**
 * Indexes the raw tags for the extra sources; `og` is rules.ts's raw og map of the same page,
 * `contentLanguage` and `pageUrl` come from the fetch.
 */
export function indexExtraTags(tags: RawTags, og: Record<string, string>, contentLanguage: string | null, pageUrl: URL | null): ExtraPage {
  const metas = new Map<string, string>();
  const itemprops = new Map<string, string>();
  const themeColors: RawMeta[] = [];
  for (const tag of tags.metas) {
    const content = tag.content;
    if (content === null || !NOT_BLANK.test(content)) continue;
    // name=, http-equiv= (`content-language`) and each term of an RDFa property= list name a key.
    const byName = recordKey(tag.name, content, metas);
    let themeColor = recordKey(tag.httpEquiv, content, metas) || byName;
    const property = tag.property;
    if (property !== null) {
      if (!HAS_SPACE.test(property.trim())) themeColor = recordKey(property, content, metas) || themeColor;
      else for (const term of property.split(WHITESPACE)) themeColor = recordKey(term, content, metas) || themeColor;
    }
    if (themeColor) themeColors.push(tag);
    if (tag.itemprop !== null) {
      const prop = tag.itemprop.trim().toLowerCase();
      if (ITEMPROPS.has(prop) && !itemprops.has(prop)) itemprops.set(prop, content);
    }
  }
  return {
    og,
    metas,
    itemprops,
    themeColors,
    htmlLang: tags.lang,
    contentLanguage,
    htmlTitle: tags.title,
    pageUrl,
    jsonLd: new PageJsonLd(tags.jsonLd ?? [], pageUrl),
  };
}

const NOT_BLANK = /\S/;
const HAS_SPACE = /\s/;
const WHITESPACE = /\s+/;

/** Records `content` under the key `raw` names if the table reads it; true when the key is theme-color. */
function recordKey(raw: string | null, content: string, metas: Map<string, string>): boolean {
  if (raw === null) return false;
  const key = raw.trim().toLowerCase();
  if (key === 'theme-color') return true;
  if (META_KEYS.has(key) && !metas.has(key)) metas.set(key, content);
  return false;
}

/** The content of the first theme-color whose media (blank when absent) passes `matches`. */
function themeColor(page: ExtraPage, matches: (media: string) => boolean): string | null {
  return page.themeColors.find((tag) => matches((tag.media ?? '').trim()))?.content ?? null;
}

function nonEmpty(value: string | null | undefined): string | null {
  return value === null || value === undefined || value.trim() === '' ? null : value;
}
