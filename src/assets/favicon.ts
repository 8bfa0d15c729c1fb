// GET /favicon.ico: the icon browsers ask this origin for beside every page (the showcase, /docs,
// a component.js opened by hand). Drawn here rather than kept as a binary file: a 32×32 card in
// the showcase's accent colour, its image above two lines of text, the shape of a link preview.
// The format is an ICO holding one 32-bit BMP (the ICONDIR, ICONDIRENTRY and BITMAPINFOHEADER
// structures of the Windows icon format, which every browser reads), alpha giving the rounded corners.

const SIZE = 32;
/** The showcase's accent (showcase-page.ts), as [red, green, blue]. */
const ACCENT = [0x0a, 0x58, 0xca] as const;
const WHITE = [0xff, 0xff, 0xff] as const;
const CORNER_RADIUS = 6;

/** White rectangles on the card, [left, top, right, bottom] inclusive, y down: the image, the title, the description. */
const GLYPH = [
  [7, 7, 24, 15],
  [7, 19, 24, 20],
  [7, 23, 18, 24],
] as const;

/** The colour and opacity (0–255) of the pixel at column x, row y (y down). */
function pixel(x: number, y: number): { rgb: readonly [number, number, number]; alpha: number } {
  // Distance beyond the nearest corner's circle, for the rounded outline.
  const cx = Math.min(Math.max(x + 0.5, CORNER_RADIUS), SIZE - CORNER_RADIUS);
  const cy = Math.min(Math.max(y + 0.5, CORNER_RADIUS), SIZE - CORNER_RADIUS);
  const outside = Math.hypot(x + 0.5 - cx, y + 0.5 - cy) - CORNER_RADIUS;
  const alpha = Math.round(255 * Math.min(1, Math.max(0, 0.5 - outside)));
  const white = GLYPH.some(([left, top, right, bottom]) => x >= left && x <= right && y >= top && y <= bottom);
  return { rgb: white ? WHITE : ACCENT, alpha };
}

const HEADER_BYTES = 6 + 16;
const INFO_BYTES = 40;
const PIXEL_BYTES = SIZE * SIZE * 4;
/** The 1-bit AND mask after the pixels: one bit a pixel, rows padded to 32 bits; all zero, alpha rules. */
const MASK_BYTES = SIZE * 4;

/** The icon's bytes (4,286 of them). */
export function faviconIco(): Buffer {
  const image = INFO_BYTES + PIXEL_BYTES + MASK_BYTES;
  const ico = Buffer.alloc(HEADER_BYTES + image);
  // ICONDIR: reserved, type 1 (icon), one image.
  ico.writeUInt16LE(0, 0);
  ico.writeUInt16LE(1, 2);
  ico.writeUInt16LE(1, 4);
  // ICONDIRENTRY: width, height, no palette, reserved, 1 plane, 32 bits, size and offset of the image.
  ico.writeUInt8(SIZE, 6);
  ico.writeUInt8(SIZE, 7);
  ico.writeUInt16LE(1, 10);
  ico.writeUInt16LE(32, 12);
  ico.writeUInt32LE(image, 14);
  ico.writeUInt32LE(HEADER_BYTES, 18);
  // BITMAPINFOHEADER: its size, width, height of the pixels and the mask together, 1 plane, 32 bits, no compression.
  const info = HEADER_BYTES;
  ico.writeUInt32LE(INFO_BYTES, info);
  ico.writeInt32LE(SIZE, info + 4);
  ico.writeInt32LE(SIZE * 2, info + 8);
  ico.writeUInt16LE(1, info + 12);
  ico.writeUInt16LE(32, info + 14);
  ico.writeUInt32LE(PIXEL_BYTES + MASK_BYTES, info + 20);
  // The pixels, bottom row first, each blue, green, red, alpha.
  for (let row = 0; row < SIZE; row++) {
    for (let x = 0; x < SIZE; x++) {
      const { rgb, alpha } = pixel(x, SIZE - 1 - row);
      const at = info + INFO_BYTES + (row * SIZE + x) * 4;
      ico[at] = rgb[2];
      ico[at + 1] = rgb[1];
      ico[at + 2] = rgb[0];
      ico[at + 3] = alpha;
    }
  }
  return ico;
}
