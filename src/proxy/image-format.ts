// What the first bytes of a proxied image say it is, decided before any header is sent. The bytes
// decide the type sent; the upstream's label (media-type.ts) only has to be image/*.

import { typeHandlers } from 'image-size/types/index';
import { PROXY_IMAGE_FORMATS, type ProxyImageFormat } from '../fetch/policy.js';

/** The allowed format the bytes start with, or null (HTML, SVG, BMP, TIFF, AVIF, ICO, noise...). */
export function detectFormat(head: Uint8Array): ProxyImageFormat | null {
  return PROXY_IMAGE_FORMATS.find((format) => validates(format.name, head)) ?? null;
}

function validates(name: ProxyImageFormat['name'], head: Uint8Array): boolean {
  try {
    return typeHandlers.get(name)?.validate(head) === true;
  } catch {
    // image-size throws on a PNG signature without IHDR ("Invalid PNG"): not an image we pass.
    return false;
  }
}
