// The rules table: for each Metadata field, one ordered list of sources; the first
// source whose value survives the field's normaliser wins. The order is docs/SPEC.md's, with these
// readings where docs/SPEC.md is terse:
//   - og:* / twitter:* keys come from `property=` or `name=`, lower-cased;
//   - the first occurrence in document order wins, in the raw maps and in the fields;
//   - an empty `content` counts as absent (falls through to the next source);
//   - for title, description, url, image and type: the preferred family, the other family, then
//     the HTML fallback; `prefer` changes nothing else (docs/SPEC.md Metadata rule 1).

import type { RawLink, RawTags } from '../../wasm-parser/types.js';
import { FIELD_LIMITS, cut } from './normalize.js';

export type Family = 'og' | 'twitter';

/** What the sources read: the raw tags indexed once per page. */
export interface PageTags {
  /** og:* key → first non-empty content (raw); a key whose every tag is empty keeps the first. */
  og: Record<string, string>;
  twitter: Record<string, string>;
  /** First non-empty `<meta name=description>` (name matched case-insensitively). */
  metaDescription: string | null;
  /** The first `<title>` text. */
  htmlTitle: string | null;
  links: RawLink[];
}

/** A source: a label (the tag it reads, for tests and reports) and how to read it. */
export interface Source {
  label: string;
  read(page: PageTags): string | null;
}

const fromMap = (family: Family, key: string): Source => ({
  label: key,
  read: (page) => nonEmpty(page[family][key]),
});

const htmlTitle: Source = { label: '<title>', read: (page) => nonEmpty(page.htmlTitle) };
const metaDescription: Source = { label: '<meta name=description>', read: (page) => page.metaDescription };
const canonicalLink: Source = {
  label: '<link rel=canonical>',
  read: (page) => page.links.find((link) => hasRel(link, 'canonical') && link.href.trim() !== '')?.href ?? null,
};

/** The family-ordered fields: per family, its tags in docs/SPEC.md's order; then the HTML fallback. */
export const FIELD_SOURCES = {
  title: { og: ['og:title'], twitter: ['twitter:title'], fallback: [htmlTitle] },
  description: { og: ['og:description'], twitter: ['twitter:description'], fallback: [metaDescription] },
  // The last fallback, the originally requested URL, is added by extract.ts (it is not a tag).
  url: { og: ['og:url'], twitter: ['twitter:url'], fallback: [canonicalLink] },
  image: { og: ['og:image', 'og:image:secure_url', 'og:image:url'], twitter: ['twitter:image', 'twitter:image:src'], fallback: [] },
  type: { og: ['og:type'], twitter: ['twitter:card'], fallback: [] },
} satisfies Record<string, { og: string[]; twitter: string[]; fallback: Source[] }>;

export type FamilyField = keyof typeof FIELD_SOURCES;

/** The sources of `field` in the order `prefer` gives them. */
export function sourcesFor(field: FamilyField, prefer: Family): readonly Source[] {
  return ORDERED_SOURCES[prefer][field];
}

function orderSources(field: FamilyField, prefer: Family): Source[] {
  const table = FIELD_SOURCES[field];
  const other: Family = prefer === 'og' ? 'twitter' : 'og';
  return [...table[prefer].map((key) => fromMap(prefer, key)), ...table[other].map((key) => fromMap(other, key)), ...table.fallback];
}

/** Each field's sources in both orders, built once: extraction reads them for every page. */
const ORDERED_SOURCES = Object.fromEntries(
  (['og', 'twitter'] as const).map((prefer) => [
    prefer,
    Object.fromEntries((Object.keys(FIELD_SOURCES) as FamilyField[]).map((field) => [field, orderSources(field, prefer)])),
  ]),
) as Record<Family, Record<FamilyField, Source[]>>;

/** The image's details: always the first og:image:* tags, whichever source won the URL. */
export const IMAGE_DETAIL_KEYS = {
  type: 'og:image:type',
  width: 'og:image:width',
  height: 'og:image:height',
  size: 'og:image:size',
} as const;

/**
 * Favicon tiers, best first (docs/SPEC.md: apple-touch-icon, mask-icon, SVG icons, other rel=icon,
 * then /favicon.ico, which extract.ts adds). Within a tier the first link in document order wins.
 */
export const FAVICON_TIERS: { label: string; matches(link: RawLink): boolean }[] = [
  { label: 'apple-touch-icon', matches: (l) => hasRel(l, 'apple-touch-icon') || hasRel(l, 'apple-touch-icon-precomposed') },
  { label: 'mask-icon', matches: (l) => hasRel(l, 'mask-icon') },
  { label: 'svg icon', matches: (l) => hasRel(l, 'icon') && isSvg(l) },
  // "shortcut icon" carries the icon token too.
  { label: 'icon', matches: (l) => hasRel(l, 'icon') },
];

/** Indexes the raw tags once: the og and twitter maps, the description meta. */
export function indexTags(tags: RawTags): PageTags {
  const og: Record<string, string> = {};
  const twitter: Record<string, string> = {};
  let ogKeys = 0;
  let twitterKeys = 0;
  let metaDescriptionValue: string | null = null;
  // The content of the meta being read, for recordFamily (one closure per page, not per tag).
  let familyContent: string | null = null;
  const recordFamily = (key: string): void => {
    if (key.startsWith('og:')) {
      if (ogKeys < FIELD_LIMITS.rawKeys || key in og) ogKeys += record(og, key, familyContent!);
    } else if (key.startsWith('twitter:')) {
      if (twitterKeys < FIELD_LIMITS.rawKeys || key in twitter) twitterKeys += record(twitter, key, familyContent!);
    }
  };
  for (const meta of tags.metas) {
    const content = meta.content;
    // Early Twitter Card markup put the content in value= (and open-graph-scraper reads it).
    familyContent = content ?? meta.value ?? null;
    const name = meta.name === null ? null : meta.name.trim().toLowerCase();
    if (familyContent !== null) forEachKey(meta.property, name, recordFamily);
    if (content === null) continue;
    if (metaDescriptionValue === null && name === 'description') metaDescriptionValue = nonEmpty(content);
  }
  return { og, twitter, metaDescription: metaDescriptionValue, htmlTitle: tags.title, links: tags.links };
}

/**
 * Calls `use` with each key a meta names, lower-cased, once each. `property` is an RDFa list of
 * space-separated terms (`property="og:title twitter:title"`: both); a tag may carry both
 * attributes (`property="og:title" name="twitter:title"`): each key counts. `name` comes trimmed
 * and lower-cased. Most tags name one key: that case allocates no list.
 */
function forEachKey(property: string | null, name: string | null, use: (key: string) => void): void {
  const terms = property === null ? '' : property.trim().toLowerCase();
  if (WHITESPACE.test(terms)) {
    const list = terms.split(WHITESPACE);
    list.forEach((term, i) => list.indexOf(term) === i && use(term));
    if (name && !list.includes(name)) use(name);
    return;
  }
  if (terms !== '') use(terms);
  if (name && name !== terms) use(name);
}

/** Any HTML whitespace run: the separator of RDFa's term lists. */
const WHITESPACE = /\s+/;

/**
 * First non-empty occurrence wins; the first empty one holds the key until then. Returns 1 when the key
 * is new. Values are raw (entity-decoded by the scanner), only cut to FIELD_LIMITS.rawValue.
 */
function record(map: Record<string, string>, key: string, content: string): number {
  const existing = map[key];
  if (existing !== undefined && (existing.trim() !== '' || content.trim() === '')) return 0;
  map[key] = cut(content, FIELD_LIMITS.rawValue);
  return existing === undefined ? 1 : 0;
}

/** `rel` is a set of space-separated, case-insensitive tokens (HTML "link types"); `token` is lower-case. */
export function hasRel(link: RawLink, token: string): boolean {
  const rel = link.rel;
  // Most links carry one token: compared without a list (and without lower-casing a longer one).
  if (!REL_SEPARATOR.test(rel)) return rel.length === token.length && rel.toLowerCase() === token;
  return rel.toLowerCase().split(REL_SEPARATORS).includes(token);
}

/** HTML's ASCII whitespace, which separates the tokens of `rel`. */
const REL_SEPARATOR = /[\t\n\f\r ]/;
const REL_SEPARATORS = /[\t\n\f\r ]+/;

function isSvg(link: RawLink): boolean {
  if (link.type !== null && link.type.trim().toLowerCase().startsWith('image/svg+xml')) return true;
  const path = link.href.trim().split(/[?#]/)[0]!.toLowerCase();
  return path.endsWith('.svg');
}

function nonEmpty(value: string | null | undefined): string | null {
  return value === null || value === undefined || value.trim() === '' ? null : value;
}
