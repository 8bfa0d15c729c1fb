// Images load directly from their origin, which spends none of the API's budget; the element
// switches to /v1/cors-proxy only when the direct load would be blocked as mixed content (http:
// image on an https: page) or fails (hotlink protection, TLS or CORP errors...). The proxy shares
// the metadata endpoint's budget (docs/SPEC.md "Limits"), so it is asked with fetch(), which sees a
// refusal and its Retry-After: the request waits for the page's gate (request-gate.ts) and asks
// again, instead of leaving the image hidden for good. The proxied bytes are shown from a blob:
// URL (a page whose CSP lists img-src needs blob: there).
import { proxied, RETRIES } from './api.js';
import { gate, refused } from './request-gate.js';

/** An <img> with its load in progress: a later render aborts the earlier one's proxy requests. */
type Loading = HTMLImageElement & { load?: AbortController };

/** The proxied image's bytes, or null when the proxy cannot give them (or `signal` aborted). */
async function viaProxy(url: string, signal: AbortSignal): Promise<Blob | null> {
  for (let retries = RETRIES; ; retries--) {
    try {
      await gate(signal);
      const response = await fetch(url, { signal });
      if (response.ok) return await response.blob();
      if (!(refused(response) && retries)) return null;
    } catch {
      return null; // unreachable, or aborted
    }
  }
}

/**
 * Points `img` at `url` (already checked to be http(s)), with the proxy as the fallback, or as
 * the only way when `proxyOnly` (the origin must not see the reader). Without an image, or when
 * every source fails, `box` hides if `collapse` (the favicon); else it stays as a cover (.n,
 * styles.ts), so nothing below the card moves.
 */
export function showImage(img: Loading, box: HTMLElement, url: string | null, apiBase: string | null, proxyOnly?: boolean, collapse?: boolean): void {
  img.load?.abort();
  const load = (img.load = new AbortController());
  const direct = !proxyOnly && !(location.protocol == 'https:' && url?.startsWith('http:'));
  const failed = () => {
    img.removeAttribute('src');
    if (collapse) box.hidden = true;
    else box.classList.add('n');
  };
  const tryProxy = async () => {
    img.onerror = failed;
    const blob = apiBase && url && (await viaProxy(proxied(apiBase, url), load.signal));
    if (load.signal.aborted) return;
    if (!blob) return failed();
    const blobUrl = URL.createObjectURL(blob);
    img.addEventListener('load', () => URL.revokeObjectURL(blobUrl), { once: true });
    img.src = blobUrl;
  };
  box.hidden = !!collapse && !url;
  img.onerror = tryProxy;
  if (url && direct) img.src = url;
  else if (url) void tryProxy();
}
