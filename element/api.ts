// Where the element talks to: the API origin and the two endpoints it uses, through the SDK
// generated from openapi.yaml, so the element and the server share one contract.
import { getMetadata } from '../generated/sdk.gen.js';
import type { Metadata } from '../generated/types.gen.js';
import { isMetadata } from './metadata-guard.js';
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
 * Metadata for `url`; otherwise the `reason` of the API's error answer (a string), or null when
 * the request fails, is aborted or answers something else.
 */
export async function fetchMetadata(base: string, url: string, signal: AbortSignal): Promise<Metadata | string | null> {
  try {
    const { data, error } = await getMetadata({ baseUrl: base, query: { url }, signal });
    if (isMetadata(data)) return data;
    const reason = (error as { reason?: unknown } | undefined)?.reason;
    return typeof reason == 'string' ? reason : null;
  } catch {
    return null; // a 200 whose body is not JSON
  }
}
