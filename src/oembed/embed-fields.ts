// One clean-up step per oEmbed field: a provider's JSON (oembed.com section 2.3.4) becomes the
// Embed of openapi.yaml or nothing. Everything in it is the provider's word and is read as
// untrusted: strings trimmed and bounded, URLs absolute http(s) only (an oEmbed answer has no base
// to resolve against), dimensions finite and non-negative. A field that cannot be cleaned is
// null; an answer whose `type` is not one of the four is no embed at all.

import type { Embed } from '../../generated/types.gen.js';
import { FIELD_LIMITS, normalizeNumber, normalizeText, normalizeUrl } from '../metadata/normalize.js';

export type OEmbed = NonNullable<Embed>;

/** The four types of oembed.com section 2.3.4.1–4. */
const EMBED_TYPES: ReadonlySet<string> = new Set<OEmbed['type']>(['photo', 'video', 'link', 'rich']);

export const EMBED_LIMITS = {
  /** A title, in code points, as the page's own title (FIELD_LIMITS.title). */
  title: FIELD_LIMITS.title,
  /** A provider's or author's name. */
  name: 200,
  /**
   * The markup, in UTF-16 units. Longer markup is dropped, not cut: a cut piece of markup is
   * broken markup. Real embeds (an iframe, a blockquote and its script) are a few KB.
   */
  html: 32 * 1024,
} as const;

/** The Embed a parsed oEmbed answer stands for, or null when it is none. */
export function normalizeEmbed(answer: unknown): OEmbed | null {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return null;
  const field = (name: string): unknown => (Object.hasOwn(answer, name) ? (answer as Record<string, unknown>)[name] : undefined);
  const type = field('type');
  if (typeof type !== 'string' || !EMBED_TYPES.has(type.trim().toLowerCase())) return null;
  return {
    type: type.trim().toLowerCase() as OEmbed['type'],
    provider_name: text(field('provider_name'), EMBED_LIMITS.name),
    provider_url: absoluteUrl(field('provider_url')),
    title: text(field('title'), EMBED_LIMITS.title),
    author_name: text(field('author_name'), EMBED_LIMITS.name),
    author_url: absoluteUrl(field('author_url')),
    thumbnail_url: absoluteUrl(field('thumbnail_url')),
    thumbnail_width: dimension(field('thumbnail_width')),
    thumbnail_height: dimension(field('thumbnail_height')),
    width: dimension(field('width')),
    height: dimension(field('height')),
    html: markup(field('html')),
  };
}

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' ? normalizeText(value, max) : null;
}

/** An absolute http(s) URL as it is; a relative one has nothing to resolve against and is dropped. */
function absoluteUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const url = URL.parse(value.trim());
  return url === null ? null : normalizeUrl(url.href, url);
}

/** Pixels: a finite number ≥ 0, or a numeric string ("640"), which some providers send. */
function dimension(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER ? value : null;
  return typeof value === 'string' ? normalizeNumber(value) : null;
}

/** Untrusted third-party markup, kept as sent (trimmed) for the API's caller; never rendered by LinkPeek. */
function markup(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const html = value.trim();
  return html === '' || html.length > EMBED_LIMITS.html ? null : html;
}
