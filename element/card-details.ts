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
 * A wide image (aspect ratio 1.5 or more, and 320px wide or more) covers the banner's 1.91:1
 * frame; a square, portrait or small one takes the thumbnail layout (.k, styles.ts): the image a
 * square beside the text, in the same height as the banner card, so nothing below the card moves
 * either way. A small image (under 320px both ways: a logo) is shown whole and never enlarged
 * (.c); a larger one is cropped to the square. The declared width and height decide when the
 * answer is painted; an image without them decides once it has loaded; one that fails leaves the
 * card as one without an image (preview-element.ts).
 */
export function fitImage(part: Part, image: HTMLImageElement, metadata: Metadata): void {
  // An unknown size (null / null) is NaN: neither below 1.5 nor under 320, the banner.
  const fit = (width?: number | null, height?: number | null) => {
    part('card').classList.toggle('k', width! / height! < 1.5 || width! < 320);
    part('media').classList.toggle('c', width! < 320 && height! < 320);
  };
  fit(metadata.image.width, metadata.image.height);
  image.onload = () => {
    fit(image.naturalWidth, image.naturalHeight);
    fitText(part);
  };
}

/**
 * Fits the text into the card's fixed text block (styles.ts): while it overflows, the description
 * gives up lines, one at a time, then the title its second line, then the byline goes. Needs the
 * card laid out; one that is not (display: none) keeps its text clipped at the block's end.
 */
export function fitText(part: Part): void {
  const body = part('body');
  const media = part('media');
  const description = part('description');
  const title = part('title');
  const byline = part('byline');
  // From the start: the layout may have changed since the last fit (the image's own size).
  description.hidden = !description.textContent;
  byline.hidden = !byline.textContent;
  description.style.webkitLineClamp = title.style.webkitLineClamp = '';
  // Beside a compact thumbnail, a column narrower than ten letters cannot hold the site line
  // (a phone at 200% text): the thumbnail gives way. The card keeps its height.
  if (body.offsetTop < media.offsetTop + media.offsetHeight && body.clientWidth < 10 * parseFloat(getComputedStyle(body).fontSize)) media.hidden = true;
  const overflows = () => body.scrollHeight > body.clientHeight;
  for (let lines = parseInt(getComputedStyle(description).webkitLineClamp); overflows() && !description.hidden;)
    if (--lines) description.style.webkitLineClamp = String(lines);
    else description.hidden = true;
  if (overflows()) title.style.webkitLineClamp = '1';
  if (overflows()) byline.hidden = true;
}
