// Small builders for RawTags in the rules tests: a page is written as the list of its tags.
import type { RawLink, RawMeta, RawTags } from '../../wasm-parser/types.js';

const blank: RawMeta = { property: null, name: null, itemprop: null, httpEquiv: null, content: null, charset: null };

/** `<meta property=key content=value>` */
export const property = (key: string, content: string | null): RawMeta => ({ ...blank, property: key, content });
/** `<meta name=key content=value>` */
export const named = (key: string, content: string | null): RawMeta => ({ ...blank, name: key, content });
/** `<meta itemprop=key content=value>` */
export const itemprop = (key: string, content: string | null): RawMeta => ({ ...blank, itemprop: key, content });
/** `<meta http-equiv=key content=value>` */
export const httpEquiv = (key: string, content: string | null): RawMeta => ({ ...blank, httpEquiv: key, content });
/** `<meta name=theme-color content=value media=…>`; no `media` attribute when none is given. */
export const themeColor = (content: string, media?: string): RawMeta => ({ ...named('theme-color', content), ...(media === undefined ? {} : { media }) });
/** `<link rel href type sizes>` */
export const link = (rel: string, href: string, type: string | null = null, sizes: string | null = null): RawLink => ({ rel, href, type, sizes });

interface PageParts {
  metas?: RawMeta[];
  title?: string | null;
  links?: RawLink[];
  baseHref?: string | null;
  lang?: string | null;
  /** JSON-LD scripts: objects are serialised, strings kept as they are (to write invalid JSON). */
  jsonLd?: (object | string)[];
}

export function page(parts: PageParts = {}): RawTags {
  return {
    metas: parts.metas ?? [],
    title: parts.title ?? null,
    links: parts.links ?? [],
    baseHref: parts.baseHref ?? null,
    lang: parts.lang ?? null,
    scriptSrcs: [],
    ...(parts.jsonLd ? { jsonLd: parts.jsonLd.map((script) => (typeof script === 'string' ? script : JSON.stringify(script))) } : {}),
  };
}

export const pageUrl = new URL('https://example.com/section/page.html?q=1');
