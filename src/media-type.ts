// Media types (RFC 9110 8.3.1: type "/" subtype, both tokens, then parameters), read with the
// `content-type` package. One reading for every place that looks at one: the Content-Type of a
// page (its type and its charset), of a proxied image and of a probed image, and the type a page
// states for its image or icon.

import contentType from 'content-type';
import { memoized } from './memo.js';

/** Distinct values read kept at once: pages and their images repeat a few types (memo.ts). */
const KEPT = 256;

/**
 * The essence ("image/png") of a media type, lower case, or null when it is missing or malformed.
 * - Parameters that do not parse ("text/html; charset=utf-8;", "image/png; x") are ignored: the
 *   essence still counts, as browsers read it.
 * - A comma anywhere gives null: it means two Content-Type headers (or one crafted as
 *   "image/png, text/html"), and which one a browser or cache would believe is not ours to guess.
 */
export function mediaTypeEssence(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : essenceOf(value);
}

const essenceOf = memoized((value: string): string | null => {
  if (value.includes(',')) return null;
  const essence = parsedType(value);
  if (essence !== null) return essence;
  const semicolon = value.indexOf(';');
  return semicolon < 0 ? null : parsedType(value.slice(0, semicolon));
}, KEPT);

/**
 * The charset parameter ("Shift_JIS" of "text/html; charset=Shift_JIS"), unquoted and not yet
 * resolved to an encoding, or null. Read as leniently as the essence: a parameter that does not
 * parse leaves the others standing ("text/html; charset=utf-8;"), and a comma gives null.
 */
export function mediaTypeCharset(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : charsetOf(value);
}

const charsetOf = memoized((value: string): string | null => {
  if (value.includes(',')) return null;
  const whole = parsed(value);
  if (whole !== null) return whole.parameters.charset || null;
  // One parameter at a time, behind a stand-in type: a malformed neighbour (or type) is skipped.
  for (const parameter of value.split(';').slice(1)) {
    const charset = parsed(`x/x;${parameter}`)?.parameters.charset;
    if (charset) return charset;
  }
  return null;
}, KEPT);

/** HTML and XHTML: the types safeFetch's Accept asks for first (fetch/policy.ts). */
const PAGE_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Whether a response of this Content-Type is read as a page. A missing or unreadable type is, as
 * a browser sniffs one (WHATWG MIME Sniffing): "text/html, text/html" is one header sent twice.
 */
export function isHtmlMediaType(value: string | null | undefined): boolean {
  const essence = mediaTypeEssence(value);
  return essence === null || PAGE_TYPES.has(essence);
}

function parsedType(value: string): string | null {
  return parsed(value)?.type ?? null;
}

function parsed(value: string): contentType.ParsedMediaType | null {
  try {
    return contentType.parse(value);
  } catch {
    // content-type throws a TypeError for an empty or malformed value.
    return null;
  }
}
