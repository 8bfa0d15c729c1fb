// When a JPEG's first bytes are enough to size it. image-size reads a JPEG's dimensions from its
// frame header (SOFn), which follows every APPn segment (EXIF, ICC, XMP...), and on bytes that
// break the segment chain it falls back to scanning byte by byte: tens of milliseconds of CPU for
// 128 KiB of garbage behind FF D8, paid again on every retry as bytes arrive. Walking the
// segment lengths first (ITU T.81 B.1.1: FF, marker, 16-bit length that counts itself) costs a
// few steps, so image-size runs once, when the frame header is in hand, and never on garbage.

/** Frame header markers SOF0–SOF15 (T.81 Table B.1), without DHT (C4), JPG (C8) and DAC (CC). */
const SOF_MARKERS: ReadonlySet<number> = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Markers that stand alone, without a length (T.81 B.1.1.3): TEM and RST0–RST7. */
const STANDALONE = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/** Bytes of a frame header up to the width: FF Cn, length (2), precision (1), height (2), width (2). */
const FRAME_HEADER_BYTES = 9;

/**
 * For bytes starting with a JPEG's SOI: 'ready' once they hold the frame header, 'more' while the
 * segment chain may still lead to it, 'never' when the chain breaks or the scan starts first.
 */
export function jpegFrameReadiness(head: Uint8Array): 'ready' | 'more' | 'never' {
  let at = 2; // after SOI (FF D8)
  for (;;) {
    // Fill bytes: any number of FF may precede a marker (T.81 B.1.1.2).
    while (at + 1 < head.length && head[at] === 0xff && head[at + 1] === 0xff) at++;
    if (at + 2 > head.length) return 'more';
    if (head[at] !== 0xff) return 'never';
    const marker = head[at + 1]!;
    if (SOF_MARKERS.has(marker)) return at + FRAME_HEADER_BYTES <= head.length ? 'ready' : 'more';
    // Start of scan, end of image or a second SOI before any frame header: no size to find.
    if (marker === 0xda || marker === 0xd9 || marker === 0xd8 || marker === 0x00) return 'never';
    if (STANDALONE(marker)) {
      at += 2;
      continue;
    }
    if (at + 4 > head.length) return 'more';
    const length = (head[at + 2]! << 8) | head[at + 3]!;
    if (length < 2) return 'never';
    at += 2 + length;
  }
}

/** SOI: every JPEG starts with FF D8 (T.81 B.1.1.1). */
export function isJpeg(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0xff && head[1] === 0xd8;
}
