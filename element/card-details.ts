// The fields beyond SPEC.md (site_name, lang, author, published_time, embed) and the card's shape.
// Like everything in Metadata they come from untrusted pages, and a hand-written data-meta may
// omit them or give them any JSON type: each is read as a string or skipped. embed.html
// (third-party markup, openapi.yaml "Embed") is never read.
import type { Metadata } from '../generated/types.gen.js';

type Part = (name: string) => HTMLElement;

/** A string field's text, or '' for anything else. */
const text = (value: unknown) => (typeof value == 'string' ? value : '');

/**
 * The publication date in the viewer's locale (the browser's). A date given without a time is
 * stored at 00:00:00.000Z (openapi.yaml published_time), so that one is shown in UTC to stay on its day.
 */
function publishedDate(value: unknown): string {
  const iso = text(value);
  const date = new Date(iso);
  if (isNaN(+date)) return '';
  const timeZone = iso.endsWith('T00:00:00.000Z') ? 'UTC' : undefined;
  return date.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone });
}

/**
 * Site name (else the host), the "author · date" line, the language of the page's own text and
 * the video badge. Without `metadata` (loading, error) it clears what an earlier render set.
 */
export function fillDetails(part: Part, host: string, metadata?: Metadata): void {
  part('host').textContent = text(metadata?.site_name) || host;
  const byline = part('byline');
  byline.textContent = [text(metadata?.author), publishedDate(metadata?.published_time)].filter(Boolean).join(' · ');
  byline.hidden = !byline.textContent;
  // The page's own text is in its language; lang="" (unknown) rather than the embedding page's.
  // An attribute value: a malformed tag is only ignored.
  for (const piece of [part('title'), part('description')]) piece.lang = text(metadata?.lang);
  part('media').classList.toggle('v', metadata?.embed?.type == 'video');
}

/**
 * Banner for a wide image (aspect ratio 1.5 or more), side thumbnail (.k) for a square or portrait
 * one or a twitter:card=summary page. The declared width and height decide first, so the card
 * does not move; the loaded image's own size corrects them.
 */
export function fitShape(card: HTMLElement, image: HTMLImageElement, metadata: Metadata): void {
  const summary = metadata.twitter['twitter:card'] == 'summary';
  // An unknown size (null / null) is NaN, not below 1.5: the banner until the image loads.
  const fit = (width?: number | null, height?: number | null) => card.classList.toggle('k', summary || width! / height! < 1.5);
  fit(metadata.image.width, metadata.image.height);
  image.onload = () => fit(image.naturalWidth, image.naturalHeight);
}
