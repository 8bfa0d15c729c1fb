// Images load directly from their origin; the element switches to /v1/cors-proxy when the
// direct load would be blocked as mixed content (http: image on an https: page) or fails
// (hotlink protection, TLS or CORP errors...). When every source fails the image area hides.
import { proxied } from './api.js';

/**
 * Points `img` at `url` (already checked to be http(s)), with the proxy as the fallback.
 * `box` is hidden while there is nothing to show. Replacing `onerror` on each call means a
 * later render always wins over the fallbacks of an earlier one.
 */
export function showImage(img: HTMLImageElement, box: HTMLElement, url: string | null, apiBase: string | null): void {
  const mixedContent = location.protocol == 'https:' && url?.startsWith('http:');
  const sources = url ? [url, apiBase && proxied(apiBase, url)] : [];
  if (mixedContent) sources.shift();
  const next = () => {
    const src = sources.shift();
    box.hidden = !src;
    if (src) img.src = src;
    else img.removeAttribute('src');
  };
  img.onerror = next;
  next();
}
