// Images load directly from their origin, which spends none of the API's budget; the element
// switches to /v1/cors-proxy only when the direct load would be blocked as mixed content (http:
// image on an https: page) or fails (hotlink protection, TLS or CORP errors...). A favicon that
// fails is hidden instead: on a page of many cards each proxied favicon would take a request from
// an image (a page of 30 cards whose images need the proxy spends 60 of 20 per 10 s reading it,
// and a 61st request cannot pass before 30 s from the first). The proxy shares
// the metadata endpoint's budget (docs/SPEC.md "Limits"), so it is asked with fetch(), which sees a
// refusal and its Retry-After: the request waits for the page's gate (request-gate.ts) and asks
// again, instead of leaving the image hidden for good. The proxied bytes are shown from a blob:
// URL (a page whose CSP lists img-src needs blob: there).
import { proxied, RETRIES, shared } from './api.js';
import { gated } from './request-gate.js';

/** An <img> with its load in progress: a later render aborts the earlier one's proxy requests. */
type Loading = HTMLImageElement & { load?: AbortController };

/** The proxied image's bytes, or null when the proxy cannot give them (or `signal` aborted). */
async function viaProxy(url: string, signal: AbortSignal, card: Element, rank: number): Promise<Blob | null> {
  for (let retries = RETRIES; ; retries--) {
    try {
      const [response, refused] = await gated(url, signal, card, rank);
      if (refused && retries) continue;
      return response.ok ? await response.blob() : null;
    } catch {
      return null; // unreachable, or aborted
    }
  }
}

/**
 * Points `img` of `card` at `url` (already checked to be http(s)), with the proxy as the
 * fallback, or as the only way when `proxyOnly` (the origin must not see the reader); the cards
 * of a page that show one image share one proxy request. A favicon (`collapse`) has the proxy
 * only when `proxyOnly`, and its request waits for every image's. Without an image, or when every
 * source fails, `box` hides if `collapse`; else it stays as a cover (.n, styles.ts), so nothing
 * below the card moves.
 */
export function showImage(
  card: Element,
  img: Loading,
  box: HTMLElement,
  url: string | null,
  apiBase: string | null,
  proxyOnly?: boolean,
  collapse?: boolean,
): void {
  img.load?.abort();
  const load = (img.load = new AbortController());
  const direct = !proxyOnly && !(location.protocol == 'https:' && url?.startsWith('http:') && !collapse);
  const failed = () => {
    img.removeAttribute('src');
    if (collapse) box.hidden = true;
    else box.classList.add('n');
    // The card becomes the one without an image (preview-element.ts).
    img.dispatchEvent(new Event('failed'));
  };
  const tryProxy = async () => {
    img.onerror = failed;
    const via = apiBase && url && proxied(apiBase, url);
    const blob = via && (await shared(via, (stop) => viaProxy(via, stop, card, collapse ? 1 : 0), Boolean, load.signal));
    if (load.signal.aborted) return;
    if (!blob) return failed();
    const blobUrl = URL.createObjectURL(blob);
    img.addEventListener('load', () => URL.revokeObjectURL(blobUrl), { once: true });
    img.src = blobUrl;
  };
  box.hidden = !!collapse && !url;
  img.onerror = collapse ? failed : tryProxy;
  if (url && direct) img.src = url;
  else if (url) void tryProxy();
}
