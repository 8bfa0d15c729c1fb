// The lol-html handlers of one scan pass: they copy raw tags out of the rewriter into a RawTags
// value, in document order, until the first `<body>` start tag. lol-html offers no stop
// call and finishes the current chunk after the `<body>` handler ran, so every handler checks
// `stopped` first: without that guard an og:title in the body overwrites the head's.

import { decodeHTML, decodeHTMLAttribute } from 'entities';
import type { Element, HTMLRewriter, TextChunk } from 'html-rewriter-wasm';
import type { RawLink, RawMeta, RawTags } from './types.js';
import { charsetOfMetaContent } from './charset.js';
import { COLLECT_LIMITS, LONG_TAG_BYTES, READ_LIMITS } from './collect-limits.js';

/** lol-html matches the type case-insensitively (`i`), as HTML compares MIME types. */
const JSON_LD_SELECTOR = 'script[type="application/ld+json" i]';

/** The meta keys whose content is a preview image URL (docs/SPEC.md ImageMetadata sources). */
const IMAGE_KEYS = new Set(['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src']);

export class TagCollector {
  readonly tags: RawTags = { metas: [], title: null, links: [], baseHref: null, lang: null, scriptSrcs: [] };
  /** Set by the first `<body>` start tag, or with `limited`; nothing after it may change `tags`. */
  stopped = false;
  /** Set when the attributes read reached READ_LIMITS: the head ends there, as at a markup bound. */
  limited = false;
  /** Label of the first charset declaration in a `<meta>` (charset= or http-equiv content-type). */
  declaredCharset: string | null = null;
  /** Called with the raw URL of every image or icon tag as it is seen (the caller may start resolving its host). */
  onImageUrl: ((rawUrl: string) => void) | null = null;
  /**
   * Bytes of a start tag still open when the current write began: inside the first element handler
   * of a write, the part of that element's own tag written before (newWrite, from ScanPass.feed).
   */
  private heldBytes = 0;
  /** No element handler has run yet during the current write (newWrite). */
  private firstOfWrite = true;

  private attributesRead = 0;
  private attributeChars = 0;
  private titleCount = 0;
  private titleParts: string[] = [];
  private titleLength = 0;
  private htmlSeen = false;
  /** The ld+json script whose text is coming in; null outside one or when it is not to be kept. */
  private jsonLdScript: { parts: string[]; length: number } | null = null;
  private jsonLdTotal = 0;

  /** Registers the handlers on a fresh rewriter. */
  attach(rewriter: HTMLRewriter): void {
    rewriter.on('body', { element: freeing<Element>(() => void (this.stopped = true)) });
    rewriter.on('meta', { element: freeing<Element>((e) => this.meta(e)) });
    rewriter.on('title', {
      element: freeing<Element>(() => void this.titleCount++),
      text: freeing<TextChunk>((t) => this.titleText(t)),
    });
    rewriter.on('link', { element: freeing<Element>((e) => this.link(e)) });
    rewriter.on('base', { element: freeing<Element>((e) => this.base(e)) });
    rewriter.on('html', { element: freeing<Element>((e) => this.html(e)) });
    rewriter.on('script[src]', { element: freeing<Element>((e) => this.script(e)) });
    rewriter.on(JSON_LD_SELECTOR, {
      element: freeing<Element>(() => this.jsonLdStart()),
      text: freeing<TextChunk>((t) => this.jsonLdText(t)),
    });
  }

  /** The collected tags; the title parts are joined and decoded here, once. */
  finish(): RawTags {
    if (this.titleCount > 0 && this.tags.title === null) {
      this.tags.title = decodeText(this.titleParts.join(''));
      this.titleParts = [];
    }
    return this.tags;
  }

  private meta(e: Element): void {
    if (this.stopped || this.longTag() || this.tags.metas.length >= COLLECT_LIMITS.metas) return;
    const attributes = this.readAttributes(e);
    if (attributes === null) return;
    const meta: RawMeta = { property: null, name: null, itemprop: null, httpEquiv: null, content: null, charset: null, value: null };
    // Names are compared lower-cased and the first of a repeated attribute wins (HTML tokenizer:
    // duplicates are dropped).
    for (const [rawName, value] of attributes) {
      switch (rawName.toLowerCase()) {
        case 'property':
          meta.property ??= decodeAttribute(value);
          break;
        case 'name':
          meta.name ??= decodeAttribute(value);
          break;
        case 'itemprop':
          meta.itemprop ??= decodeAttribute(value);
          break;
        case 'http-equiv':
          meta.httpEquiv ??= decodeAttribute(value);
          break;
        case 'content':
          meta.content ??= decodeAttribute(value);
          break;
        case 'charset':
          meta.charset ??= decodeAttribute(value);
          break;
        case 'value':
          meta.value ??= decodeAttribute(value);
          break;
        case 'media':
          meta.media ??= decodeAttribute(value);
          break;
      }
    }
    this.tags.metas.push(meta);
    if (this.onImageUrl && meta.content !== null && IMAGE_KEYS.has((meta.property ?? meta.name ?? '').toLowerCase())) {
      this.onImageUrl(meta.content);
    }
    if (this.declaredCharset === null) {
      const label =
        meta.charset ?? (meta.httpEquiv?.trim().toLowerCase() === 'content-type' && meta.content !== null ? charsetOfMetaContent(meta.content) : null);
      if (label !== null && label.trim() !== '') this.declaredCharset = label.trim();
    }
  }

  /**
   * The element's attributes, in one crossing out of WebAssembly, counted against READ_LIMITS; null
   * (and the head ends here) when they would pass a bound.
   */
  private readAttributes(e: Element): [string, string][] | null {
    // An iterator over an array the glue made in one call.
    const attributes = Array.from(e.attributes);
    let chars = 0;
    for (const [, value] of attributes) chars += value.length;
    this.attributesRead += attributes.length;
    this.attributeChars += chars;
    if (this.attributesRead > READ_LIMITS.attributes || this.attributeChars > READ_LIMITS.attributeChars) {
      this.limited = this.stopped = true;
      return null;
    }
    return attributes;
  }

  /**
   * Called before each write into the rewriter, with the bytes of a start tag still open when it
   * begins. A number, not a callback into the pass: the rewriter's handlers hold this collector
   * from WebAssembly's side, and a collector holding its pass kept every scan's objects alive
   * through the young generation's collections (bench/results/e2e-cpu.md).
   */
  newWrite(heldBytes: number): void {
    this.firstOfWrite = true;
    this.heldBytes = heldBytes;
  }

  /**
   * Inside an element handler: the element's start tag is too long to read (LONG_TAG_BYTES). Only
   * the first element handled in a write can have begun before it.
   */
  private longTag(): boolean {
    if (!this.firstOfWrite) return false;
    this.firstOfWrite = false;
    return this.heldBytes > LONG_TAG_BYTES;
  }

  private titleText(t: TextChunk): void {
    // Text of the first <title> only: the element handler of a second <title> has already run
    // (titleCount 2) before any of its text arrives.
    if (this.stopped || this.titleCount !== 1 || this.titleLength >= COLLECT_LIMITS.titleChars) return;
    const text = t.text;
    if (text !== '') {
      this.titleParts.push(text);
      this.titleLength += text.length;
    }
  }

  private link(e: Element): void {
    if (this.stopped || this.longTag() || this.tags.links.length >= COLLECT_LIMITS.links) return;
    let rel: string | null = null;
    let href: string | null = null;
    let type: string | null = null;
    let sizes: string | null = null;
    const attributes = this.readAttributes(e);
    if (attributes === null) return;
    for (const [rawName, value] of attributes) {
      switch (rawName.toLowerCase()) {
        case 'rel':
          rel ??= decodeAttribute(value);
          break;
        case 'href':
          href ??= decodeAttribute(value);
          break;
        case 'type':
          type ??= decodeAttribute(value);
          break;
        case 'sizes':
          sizes ??= decodeAttribute(value);
          break;
      }
    }
    // A link without rel or href names nothing the rules could use.
    if (rel === null || href === null) return;
    const link: RawLink = { rel, href, type, sizes };
    this.tags.links.push(link);
    if (this.onImageUrl && /\bicon\b/i.test(rel)) this.onImageUrl(href);
  }

  private base(e: Element): void {
    if (this.stopped || this.longTag() || this.tags.baseHref !== null) return;
    const href = e.getAttribute('href');
    // HTML "frozen base URL": only the first <base> with an href counts.
    if (href !== null) this.tags.baseHref = decodeAttribute(href);
  }

  private html(e: Element): void {
    if (this.stopped || this.longTag() || this.htmlSeen) return;
    this.htmlSeen = true;
    const lang = e.getAttribute('lang');
    if (lang !== null) this.tags.lang = decodeAttribute(lang);
  }

  private script(e: Element): void {
    if (this.stopped || this.longTag() || this.tags.scriptSrcs.length >= COLLECT_LIMITS.scriptSrcs) return;
    const src = e.getAttribute('src');
    if (src !== null) this.tags.scriptSrcs.push(decodeAttribute(src));
  }

  private jsonLdStart(): void {
    const kept = this.tags.jsonLd?.length ?? 0;
    this.jsonLdScript = this.stopped || kept >= COLLECT_LIMITS.jsonLdScripts ? null : { parts: [], length: 0 };
  }

  /**
   * Joins the script's text pieces; at the last one, keeps the text if it is within its bounds.
   * Script text is raw text in HTML: no character references to decode. Whether a script is kept
   * depends on its whole length only, so it is the same however the input is cut.
   */
  private jsonLdText(t: TextChunk): void {
    const script = this.jsonLdScript;
    if (script === null || this.stopped) return;
    if (script.length <= COLLECT_LIMITS.jsonLdChars) {
      const text = t.text;
      script.length += text.length;
      // Past the bound the pieces are dropped and no further text is copied out of WebAssembly.
      if (script.length > COLLECT_LIMITS.jsonLdChars) script.parts = [];
      else if (text !== '') script.parts.push(text);
    }
    if (!t.lastInTextNode) return;
    this.jsonLdScript = null;
    const { length } = script;
    if (length === 0 || length > COLLECT_LIMITS.jsonLdChars || this.jsonLdTotal + length > COLLECT_LIMITS.jsonLdTotalChars) return;
    this.jsonLdTotal += length;
    (this.tags.jsonLd ??= []).push(script.parts.join(''));
  }
}

/**
 * Wraps a handler so the wrapper object lol-html hands it is freed afterwards. Each Element and
 * TextChunk is a wasm-bindgen object living in WebAssembly memory until its free() is called;
 * end() and the rewriter's own free() do not release them, so without this the memory grows
 * with every document scanned (test/wasm-parser/memory.test.ts).
 */
function freeing<T extends Element | TextChunk>(handle: (token: T) => void): (token: T) => void {
  return (token) => {
    try {
      handle(token);
    } finally {
      // free() exists at run time; html-rewriter-wasm's .d.ts leaves it out.
      (token as T & { free(): void }).free();
    }
  };
}

/** lol-html hands attribute values over raw (`&amp;` stays): decode character references. */
function decodeAttribute(value: string): string {
  return value.includes('&') ? decodeHTMLAttribute(value) : value;
}

/** RCDATA text (`<title>`) decodes references like body text. */
function decodeText(value: string): string {
  return value.includes('&') ? decodeHTML(value) : value;
}
