// What the fairness world serves: the bystander's ordinary article pages, and the attackers'
// pages, one kind per attack class (bench/fairness/attacks.ts names the URLs that reach them).

import type http from 'node:http';
import { gzipSync } from 'node:zlib';

/**
 * An ordinary article, about 25 KB: the usual head (title, description, Open Graph and Twitter
 * tags, an icon, a stylesheet and a script inline) and a body of text. Its image and icon live on
 * the site's CDN host, a new image per article, so an uncached answer probes them as a real one does.
 */
export function articleHtml(site: string, cdnOrigin: string, path: string): string {
  const slug = path.replace(/[^a-z0-9]+/gi, '-');
  const text = 'The council met on Tuesday to discuss the new cycling lanes and the budget for the coming year. ';
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>Story ${slug} | ${site}</title>`,
    `<meta name="description" content="${text.trim()}">`,
    `<meta property="og:title" content="Story ${slug}"><meta property="og:type" content="article">`,
    `<meta property="og:site_name" content="${site}"><meta property="og:url" content="https://${site}${path}">`,
    `<meta property="og:image" content="${cdnOrigin}/img${slug}.jpg"><meta name="twitter:card" content="summary_large_image">`,
    `<link rel="icon" href="${cdnOrigin}/favicon.ico">`,
    `<style>${'.article p{margin:0 0 1em;line-height:1.5}'.repeat(150)}</style>`,
    `<script>${'window.dataLayer=window.dataLayer||[];'.repeat(100)}</script>`,
    '</head><body><article>',
    `<h1>Story ${slug}</h1>${`<p>${text.repeat(4)}</p>`.repeat(40)}`,
    '</article></body></html>',
  ].join('');
}

/** Attack 1: headers and the start of a head, then one byte every DRIP_EVERY_MS; ends only when closed (or after DRIP_LONGEST_MS). */
export function drip(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.write('<!doctype html><html><head>');
  const timer = setInterval(() => res.write(' '), DRIP_EVERY_MS);
  const longest = setTimeout(() => res.end(), DRIP_LONGEST_MS);
  res.on('close', () => {
    clearInterval(timer);
    clearTimeout(longest);
  });
}
const DRIP_EVERY_MS = 500;
/** Far past any fetch deadline of the service; it only bounds the world's own timers. */
const DRIP_LONGEST_MS = 120_000;

/**
 * Attack 3: a small, fast page whose image, icon and oEmbed endpoint are on three new names of
 * `hangZone`, whose nameserver never answers.
 */
export function hangingAssetsHtml(token: string, hangZone: string): string {
  return [
    '<!doctype html><html><head><meta charset="utf-8"><title>Preview me</title>',
    `<meta property="og:title" content="Preview me"><meta property="og:image" content="http://${token}i.${hangZone}/card.png">`,
    `<link rel="icon" href="http://${token}f.${hangZone}/favicon.ico">`,
    `<link rel="alternate" type="application/json+oembed" href="http://${token}o.${hangZone}/oembed?format=json">`,
    '</head><body>hi</body></html>',
  ].join('');
}

/**
 * Attack 4: a gzip page of a few KB that expands to a head just under MAX_PAGE_BYTES' default
 * (2 MiB) of one element repeated: `<title>x</title>`, the costliest per byte of the heads tried
 * with the scanner alone (`<i>`, `<b>`, `<div>`, `<meta>`, `<link>`, `<base>`, `<script>`,
 * comments, long attribute lists; the figures are in bench/results/fairness.md).
 */
export const HEAVY_HEAD = (() => {
  const unit = '<title>x</title>';
  const head = unit.repeat(Math.floor((2_000_000 - 200) / unit.length));
  return gzipSync(`<!doctype html><html><head>${head}</head><body>x</body></html>`, { level: 9 });
})();

export function heavy(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': HEAVY_HEAD.length });
  res.end(HEAVY_HEAD);
}
