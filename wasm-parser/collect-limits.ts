// How much one document may put into RawTags and how long a start tag may be before it is
// skipped unread: the bounds of the scan's copies (collector.ts), beside the fetcher's byte cap on
// its input.

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
 * A start tag longer than this is skipped unread. Reading a tag's attributes costs time in their
 * number (a wrapper per attribute, or a scan of all of them per getAttribute), and one tag of a
 * megabyte of one-letter attributes took hundreds of milliseconds in one call, which no budget
 * checked between writes can interrupt. Real tags stay far below (a long one is a data: URI, which
 * no field uses). Measured as the part of the tag written before the current write (heldBytes):
 * a tag up to this long is always read, one longer by a written piece (MAX_PIECE, 64 KiB) never.
 */
export const LONG_TAG_BYTES = 16 * 1024;
