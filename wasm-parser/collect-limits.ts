// How much one document may put into RawTags, how much markup a head may hold before the scan
// stops, and how long a start tag may be before it is skipped unread: the bounds of the scan's
// work and copies, beside the fetcher's byte cap on its input. Every bound counts bytes, elements
// or characters, never time, so the same bytes give the same tags on any machine at any load.

/**
 * Bounds on what one document may put into RawTags; the fetcher's byte cap bounds the input, these
 * bound the copies. Far above what real pages carry (bench/results/page-shapes.md).
 */
export const COLLECT_LIMITS = {
  metas: 1000,
  links: 1000,
  scriptSrcs: 500,
  /** Characters of `<title>` text kept; the title normaliser cuts far shorter. */
  titleChars: 64 * 1024,
  /** `<script type=application/ld+json>` texts kept (real heads carry a few: page-shapes.md). */
  jsonLdScripts: 16,
  /** Characters of one such script: a longer one is left out whole (a cut JSON text is no JSON). */
  jsonLdChars: 64 * 1024,
  /** Characters of all kept scripts together: a script that would pass this is left out. */
  jsonLdTotalChars: 256 * 1024,
};

/**
 * Attributes read out of meta and link tags, and the characters of their values, before the scan
 * stops as if the head ended there (ScanResult.markupLimit): each attribute is a copy out of
 * WebAssembly, and each character may need decoding. Real heads: at most 1,610 attributes and
 * 80,716 characters (page-shapes.md).
 */
export const READ_LIMITS = {
  attributes: 10_000,
  attributeChars: 512 * 1024,
};

/**
 * A start tag still open this many bytes after its `<` ends the scan there (ScanResult.markupLimit):
 * lol-html holds an open tag back and lexes it again with every write, so one tag of megabytes
 * costs hundreds of milliseconds. The longest real start tag seen is about 17 KB (page-shapes.md).
 */
export const MAX_OPEN_TAG_BYTES = 64 * 1024;

/**
 * A start tag longer than this is skipped unread. Reading a tag's attributes costs time in their
 * number (a wrapper per attribute, or a scan of all of them per getAttribute), and one tag of a
 * megabyte of one-letter attributes took hundreds of milliseconds in one call, which no budget
 * checked between writes can interrupt. Real tags stay far below (a long one is a data: URI, which
 * no field uses). Measured as the part of the tag written before the current write (heldBytes):
 * a tag up to this long is always read, one longer by a written piece (MAX_PIECE, 64 KiB) never.
 */
export const LONG_TAG_BYTES = 16 * 1024;

/**
 * Tags (`<` or `</` and a letter, in the UTF-8 given to lol-html) a scan reads before it stops as
 * if the head ended there (ScanResult.markupLimit). lol-html's cost follows the tags it tokenizes
 * and hands to handlers, not the bytes: 2 MB of `<i>` is 700,000 elements. The largest real head
 * seen has 4,006, inline scripts' text included (bench/results/page-shapes.md); the most
 * expensive heads that reach a bound stay within the CPU target (bench/results/scan-worst.md).
 */
export const MAX_TAGS = 20_000;

/**
 * Start tags of the elements the scan hands to its handlers (collector.ts: meta, link, title,
 * base, html, script) a scan reads before it stops the same way. Each costs a crossing out of
 * WebAssembly and a wrapper, several times an element nobody handles. The largest real head has
 * 802 of them (page-shapes.md).
 */
export const MAX_HANDLED_TAGS = 4_000;
