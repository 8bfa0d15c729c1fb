// What an image's first bytes say it is (image-size reads the format and the
// dimensions from the header, one well-kept parser instead of hand-written signatures).

import { imageSize } from 'image-size';

/** The MIME type of each format image-size names, for the formats a preview can show. */
const MIME_OF: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  cur: 'image/x-icon',
  bmp: 'image/bmp',
  avif: 'image/avif',
  heif: 'image/heif',
  tiff: 'image/tiff',
  jxl: 'image/jxl',
};

export interface SniffedImage {
  /** MIME type from the bytes, e.g. image/png. */
  type: string;
  /** Pixels; null when the header does not say (some SVGs). */
  width: number | null;
  height: number | null;
}

/** The image the bytes start with, or null when they are no image image-size knows. */
export function sniffImage(head: Uint8Array): SniffedImage | null {
  try {
    // A copy: given a view into a larger buffer, image-size reads past the view's end.
    const size = imageSize(new Uint8Array(head));
    const type = size.type ? MIME_OF[size.type] : undefined;
    if (!type) return null;
    // An ICO holds several sizes; image-size 2.1 reports the largest.
    return { type, width: size.width ?? null, height: size.height ?? null };
  } catch {
    return null;
  }
}

/** Bytes that are enough for image-size to read the header of every supported format. */
export const SNIFF_BYTES = 64 * 1024;
