// One clean-up step per kind of field: rules hand over raw strings, these make them
// trimmed, bounded and absolute, or null. A value that cannot be cleaned is null, which lets the
// rules table fall through to the next source (a `javascript:` og:url gives way to the next one).

import { mediaTypeEssence } from '../media-type.js';
import { asUri } from '../uri.js';

/**
 * Length bounds, in code points (URLs in UTF-16 units of the serialized href). Far above real
 * values (bench/results/page-shapes.md: titles to 253 characters, descriptions to 1,170), low enough
 * that a 1 MB `<title>` never reaches a response whole.
 */
export const FIELD_LIMITS = {
  title: 500,
  description: 2000,
  /** og:type / twitter:card values are single words ("article", "summary_large_image"). */
  type: 100,
  /** An image's or icon's MIME type ("image/svg+xml"); registered types are far shorter. */
  mimeType: 100,
  /** A longer URL is dropped rather than cut (a cut URL points elsewhere); matches the request limit. */
  url: 4096,
  /** Values of the raw og / twitter maps (kept raw, only cut). */
  rawValue: 4096,
  /** Distinct keys kept per raw map (og, twitter); real pages carry under 60. */
  rawKeys: 256,
} as const;

const ELLIPSIS = '…';

/** Whitespace runs (any Unicode space, NBSP and line breaks included) become one space. */
const WHITESPACE = /\s+/g;
/** C0/C1 control characters other than whitespace: never meant to be shown. */
const CONTROLS = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/g;
/** What either replacement would change: a control character, whitespace other than one space, or two spaces. */
const UNCLEAN = /[\u0000-\u001f\u007f-\u009f]|[^\S ]| {2}/;

/** Trims, collapses whitespace, drops control characters, cuts to `max` code points; '' → null. */
export function normalizeText(raw: string | null | undefined, max: number): string | null {
  if (raw === null || raw === undefined) return null;
  // Most values have nothing to drop or collapse: they are only trimmed, with no copies made.
  const text = (UNCLEAN.test(raw) ? raw.replace(CONTROLS, '').replace(WHITESPACE, ' ') : raw).trim();
  if (text === '') return null;
  return cut(text, max);
}

/** Cuts `text` to at most `max` code points, marking the cut with an ellipsis. */
export function cut(text: string, max: number): string {
  // Fewer UTF-16 units than the bound means fewer code points too.
  if (text.length <= max) return text;
  let points = 0;
  let keepEnd = 0; // UTF-16 index after the (max - 1)th code point
  for (let i = 0; i < text.length;) {
    const step = text.codePointAt(i)! > 0xffff ? 2 : 1;
    points++;
    if (points === max) keepEnd = i;
    if (points > max) return text.slice(0, keepEnd).trimEnd() + ELLIPSIS;
    i += step;
  }
  return text;
}

/**
 * Resolves `raw` against `base` and keeps it only if it is an http(s) URL no longer than
 * FIELD_LIMITS.url, written as an RFC 3986 URI (uri.ts). `javascript:`, `data:` and other schemes,
 * and unparsable values, give null.
 */
export function normalizeUrl(raw: string | null | undefined, base: URL | string): string | null {
  if (raw === null || raw === undefined) return null;
  const trimmed = raw.trim();
  if (trimmed === '') return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const href = asUri(url);
  return href.length <= FIELD_LIMITS.url ? href : null;
}

/** "1200", "1200.5", "1200px" → a non-negative number; anything else (negative, "auto") → null. */
export function normalizeNumber(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const match = /^\+?(\d+(?:\.\d+)?|\.\d+)\s*(?:px)?$/i.exec(raw.trim());
  if (match === null) return null;
  const value = Number(match[1]);
  return Number.isFinite(value) && value <= Number.MAX_SAFE_INTEGER ? value : null;
}

/** A MIME type "type/subtype" (media-type.ts), lower-cased, parameters dropped; anything else → null. */
export function normalizeMimeType(raw: string | null | undefined): string | null {
  const essence = mediaTypeEssence(raw);
  return essence !== null && essence.length <= FIELD_LIMITS.mimeType ? essence : null;
}

/** `sizes="32x32 16x16"` → the first width × height; "any" or garbage → nulls. */
export function normalizeIconSizes(raw: string | null | undefined): { width: number | null; height: number | null } {
  const match = raw ? /(?:^|\s)(\d+)[xX](\d+)(?:\s|$)/.exec(raw.trim()) : null;
  if (match === null) return { width: null, height: null };
  return { width: normalizeNumber(match[1]), height: normalizeNumber(match[2]) };
}
