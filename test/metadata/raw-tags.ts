// Small builders for RawTags in the rules tests: a page is written as the list of its tags.
import type { RawLink, RawMeta, RawTags } from '../../wasm-parser/types.js';

const blank: RawMeta = { property: null, name: null, itemprop: null, httpEquiv: null, content: null, charset: null };

/** `<meta property=key content=value>` */
export const property = (key: string, content: string | null): RawMeta => ({ ...blank, property: key, content });
/** `<meta name=key content=value>` */
export const named = (key: string, content: string | null): RawMeta => ({ ...blank, name: key, content });
/** `<link rel href type sizes>` */
export const link = (rel: string, href: string, type: string | null = null, sizes: string | null = null): RawLink => ({ rel, href, type, sizes });

export function page(parts: { metas?: RawMeta[]; title?: string | null; links?: RawLink[]; baseHref?: string | null } = {}): RawTags {
  return {
    metas: parts.metas ?? [],
    title: parts.title ?? null,
    links: parts.links ?? [],
    baseHref: parts.baseHref ?? null,
    lang: null,
    scriptSrcs: [],
  };
}

export const pageUrl = new URL('https://example.com/section/page.html?q=1');
