// Media types (RFC 9110 8.3.1: type "/" subtype, both tokens, then parameters), read with the
// `content-type` package. One reading for every place that looks at one: the Content-Type of a
// page, of a proxied image and of a probed image, and the type a page states for its image or icon.

import contentType from 'content-type';

/**
 * The essence ("image/png") of a media type, lower case, or null when it is missing or malformed.
 * - Parameters that do not parse ("text/html; charset=utf-8;", "image/png; x") are ignored: the
 *   essence still counts, as browsers read it.
 * - A comma anywhere gives null: it means two Content-Type headers (or one crafted as
 *   "image/png, text/html"), and which one a browser or cache would believe is not ours to guess.
 */
export function mediaTypeEssence(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value.includes(',')) return null;
  const essence = parsedType(value);
  if (essence !== null) return essence;
  const semicolon = value.indexOf(';');
  return semicolon < 0 ? null : parsedType(value.slice(0, semicolon));
}

function parsedType(value: string): string | null {
  try {
    return contentType.parse(value).type;
  } catch {
    // content-type throws a TypeError for an empty or malformed value.
    return null;
  }
}
