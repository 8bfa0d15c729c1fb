// What the proxy decides before any header is sent (issue 5): is the upstream's Content-Type an
// image type at all, and what do the first bytes say the image is. The bytes decide the type sent;
// the label only has to be image/*.

import { typeHandlers } from 'image-size/types/index';
import { PROXY_IMAGE_FORMATS, type ProxyImageFormat } from '../fetch/policy.js';

/** RFC 9110 8.3.1: type "/" subtype, tokens; parameters after ";" are dropped. */
const MEDIA_TYPE = /^\s*([!#$%&'*+.^_`|~0-9a-z-]+)\/([!#$%&'*+.^_`|~0-9a-z-]+)\s*(?:;.*)?$/i;

/**
 * The essence ("image/png") of a Content-Type, lower case, or null when it is missing, malformed,
 * or lists several values. A comma means the upstream sent two Content-Types (or one crafted as
 * "image/png, text/html"): which one a browser or cache would believe is not ours to guess.
 */
export function mediaTypeEssence(header: string | undefined): string | null {
  if (header === undefined || header.includes(',')) return null;
  const match = MEDIA_TYPE.exec(header);
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : null;
}

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
