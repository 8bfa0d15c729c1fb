// What the first bytes of a proxied image say it is, decided before any header is sent. The bytes
// decide the type sent; the upstream's label (media-type.ts) only has to be image/*.

import { typeHandlers } from 'image-size/types/index';
import { PROXY_IMAGE_FORMATS, type ProxyImageFormat } from '../fetch/policy.js';
import { sniffImage } from '../images/sniff.js';

/**
 * The allowed format the bytes start with, or null (HTML, SVG, BMP, TIFF, AVIF, ICO, noise...),
 * and null too for an image no browser will draw, when its first bytes already say so: a JPEG
 * whose start of image is not followed by a marker, or a header that gives a width or height of
 * zero (PNG's IHDR forbids it; a JPEG's height of zero needs a DNL marker browsers do not read).
 */
export function detectFormat(head: Uint8Array): ProxyImageFormat | null {
  const format = PROXY_IMAGE_FORMATS.find((candidate) => validates(candidate.name, head)) ?? null;
  if (format === null) return null;
  // image-size accepts any FF D8 as a JPEG; every segment starts with FF.
  if (format.name === 'jpg' && head.length > 2 && head[2] !== 0xff) return null;
  // Dimensions are read only when the head holds them (a JPEG's frame header may come later).
  const size = sniffImage(head);
  if (size !== null && (size.width === 0 || size.height === 0)) return null;
  return format;
}

function validates(name: ProxyImageFormat['name'], head: Uint8Array): boolean {
  try {
    return typeHandlers.get(name)?.validate(head) === true;
  } catch {
    // image-size throws on a PNG signature without IHDR ("Invalid PNG"): not an image we pass.
    return false;
  }
}
