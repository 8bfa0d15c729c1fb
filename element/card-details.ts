// The fields beyond SPEC.md (site_name, lang, author, published_time, embed) and how the image
// sits in its frame. Like everything in Metadata they come from untrusted pages;
// metadata-guard.ts lets through only strings or null (or nothing) for them, so each goes in as
// text or an attribute value. embed.html (third-party markup, openapi.yaml "Embed") is never read.
import type { Metadata } from '../generated/types.gen.js';
import { plainText } from './plain-text.js';

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
 * The description as far as a card shows it: two lines hold about 160 characters at the card's
 * widest, so a longer one is cut at a word there with "…". The link's accessible name holds it,
 * and a screen reader should not read 2,000 characters of it.
 */
export const shortened = (text: string) => (text.length > 160 ? text.slice(0, 160).replace(/\s+\S*$/, '') + '…' : text);

const same = (a?: string | null, b?: string | null) => a?.toLowerCase() == b?.toLowerCase();

/**
 * The site line: the site name and, always, the registrable domain `domain` ("PayPal ·
 * paypa1-account-verify.example"; the domain alone when there is no name or it is the domain),
 * so a page cannot pass for another site. The "author · date" line (an author who is the site
 * again is not repeated), the page's language on the card, and the video badge. Without
 * `metadata` (loading, error) it clears what an earlier render set.
 */
export function fillDetails(part: Part, domain: string, metadata?: Metadata): void {
  const name = plainText(metadata?.site_name);
  const named = !!name && !same(name, domain);
  part('host').textContent = named ? name : domain;
  part('domain').textContent = named ? domain : '';
  const byline = part('byline');
  const author = plainText(metadata?.author);
  const byAuthor = same(author, name) ? '' : author;
  byline.textContent = [byAuthor, publishedDate(metadata?.published_time)].filter(Boolean).join(' · ');
  byline.hidden = !byline.textContent;
  // Its date is in the viewer's locale (the browser's), not in the page's language.
  byline.lang = navigator.language;
  // The page's own text is in its language; lang="" (unknown) rather than the embedding page's.
  // An attribute value: a malformed tag is only ignored.
  const card = part('card');
  if (metadata) card.lang = metadata.lang ?? '';
  else card.removeAttribute('lang');
}

/**
 * A wide image (aspect ratio 1.5 or more) covers the 1.91:1 frame; a square, portrait or small
 * one (under 320px wide: a logo) is shown whole inside it (.c), never enlarged, so the card keeps
 * the height reserved for it whatever the image turns out to be. The declared width and height decide first; the loaded image's own size
 * corrects them (only the fit changes, never the layout).
 */
export function fitImage(media: HTMLElement, image: HTMLImageElement, metadata: Metadata): void {
  // An unknown size (null / null) is NaN, not below 1.5: covered until the image loads.
  const fit = (width?: number | null, height?: number | null) => media.classList.toggle('c', width! / height! < 1.5 || width! < 320);
  fit(metadata.image.width, metadata.image.height);
  image.onload = () => fit(image.naturalWidth, image.naturalHeight);
}

/**
 * Fits the text into the card's fixed text block (styles.ts): while it overflows, the description
 * gives up a line, then the other, then the title its second line, then the byline goes. Needs
 * the card laid out; one that is not (display: none) keeps its text clipped at the block's end.
 */
export function fitText(part: Part): void {
  const body = part('body');
  const media = part('media');
  // Beside a compact thumbnail, a column narrower than ten letters cannot hold the site line
  // (a phone at 200% text): the thumbnail gives way. The card keeps its height.
  if (body.offsetTop < media.offsetTop + media.offsetHeight && body.clientWidth < 10 * parseFloat(getComputedStyle(body).fontSize)) media.hidden = true;
  const description = part('description');
  const title = part('title');
  const steps = [
    () => (description.style.webkitLineClamp = '1'),
    () => (description.hidden = true),
    () => (title.style.webkitLineClamp = '1'),
    () => (part('byline').hidden = true),
  ];
  for (const step of steps) if (body.scrollHeight > body.clientHeight) step();
}
