// Where the element talks to: the API origin and the two endpoints it uses, through the SDK
// generated from openapi.yaml, so the element and the server share one contract.
import { getMetadata } from '../generated/sdk.gen.js';
import type { Metadata } from '../generated/types.gen.js';
import { metadataProblem } from './metadata-guard.js';
import { httpUrl } from './safe-url.js';

/** The origin component.js was served from: by default the API lives there too. */
const MODULE_ORIGIN = new URL(import.meta.url).origin;

/**
 * The API base URL without a trailing slash: `data-endpoint` (resolved against the page, so
 * "/linkpeek" works; a trailing "/v1/metadata" is tolerated) or the module's origin. Null when
 * data-endpoint is not an http(s) URL.
 */
export function apiBase(endpoint: string | undefined): string | null {
  if (endpoint == null) return MODULE_ORIGIN;
  let resolved: string | null = null;
  try {
    resolved = httpUrl(new URL(endpoint, document.baseURI).href);
  } catch {
    // not a URL at all
  }
  return resolved && resolved.replace(/[?#].*$/, '').replace(/\/(v1\/metadata\/?)?$/, '');
}

/** The image proxy on the API's origin (docs/SPEC.md "GET /v1/cors-proxy"). */
export const proxied = (base: string, imageUrl: string) => `${base}/v1/cors-proxy?url=${encodeURIComponent(imageUrl)}`;

/**
 * A refused request (429: the client's budget is spent, docs/SPEC.md "Limits"; 503: the service
 * is overloaded) is asked again after its Retry-After, in seconds or until its date (1 s when it has none): at most
 * RETRIES times, waiting at most MAX_WAIT_S each time, so a page of many cards settles within a minute
 * or two and a permanently refusing service still ends in the error state.
 */
const RETRIES = 3;
const MAX_WAIT_S = 30;

/** Resolves after `ms`, or at once when `signal` (the card's own) aborts: the next request then fails at once. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise((done) => {
    setTimeout(done, ms);
    signal.onabort = done;
  });

/**
 * Metadata for `url`; otherwise the `reason` of the API's error answer (a string), or null when
 * the request fails, is aborted or answers something else.
 */
export async function fetchMetadata(base: string, url: string, signal: AbortSignal): Promise<Metadata | string | null> {
  for (let retries = RETRIES; ; retries--) {
    try {
      const { data, error, response } = await getMetadata({ baseUrl: base, query: { url }, signal });
      if (!metadataProblem(data, '')) return data as Metadata;
      const status = response?.status;
      if ((status == 429 || status == 503) && retries) {
        const after = response.headers.get('retry-after');
        // Seconds, or an HTTP-date (RFC 9110 10.2.3), as a proxy in front of the API may send it.
        await pause(Math.min(Number(after) || (Date.parse(after!) - Date.now()) / 1000 || 1, MAX_WAIT_S) * 1000, signal);
        continue;
      }
      const reason = (error as { reason?: unknown } | undefined)?.reason;
      return typeof reason == 'string' ? reason : null;
    } catch {
      return null; // a 200 whose body is not JSON
    }
  }
}
