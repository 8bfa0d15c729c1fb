// The fields beyond SPEC.md (site_name, lang, author, published_time, embed) and the card's shape.
// Like everything in Metadata they come from untrusted pages; metadata-guard.ts lets through
// only strings or null (or nothing) for them, so each goes in as text or an attribute value.
// embed.html (third-party markup, openapi.yaml "Embed") is never read.
import type { Metadata } from '../generated/types.gen.js';

type Part = (name: string) => HTMLElement;

/**
 * The publication date in the viewer's locale (the browser's), or '' when there is none or it is
 * not a date. A date given without a time is stored at 00:00:00.000Z (openapi.yaml
 * published_time), so that one is shown in UTC to stay on its day.
 */
function publishedDate(iso: string | null | undefined): string {
  const date = new Date(iso ?? '');
  if (isNaN(+date)) return '';
  const timeZone = iso!.endsWith('T00:00:00.000Z') ? 'UTC' : undefined;
  return date.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone });
}

/**
 * Site name (else the host), the "author · date" line, the language of the page's own text and
 * the video badge. Without `metadata` (loading, error) it clears what an earlier render set.
 */
export function fillDetails(part: Part, host: string, metadata?: Metadata): void {
  part('host').textContent = metadata?.site_name || host;
  const byline = part('byline');
  byline.textContent = [metadata?.author, publishedDate(metadata?.published_time)].filter(Boolean).join(' · ');
  byline.hidden = !byline.textContent;
  // The page's own text is in its language; lang="" (unknown) rather than the embedding page's.
  // An attribute value: a malformed tag is only ignored.
  for (const piece of [part('title'), part('description')]) piece.lang = metadata?.lang ?? '';
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
