// Where the element talks to: the API origin and the two endpoints it uses, through the SDK
// generated from openapi.yaml, so the element and the server share one contract.
import { getMetadata } from '../generated/sdk.gen.js';
import type { Metadata } from '../generated/types.gen.js';
import { metadataProblem } from './metadata-guard.js';
import { gate, refused } from './request-gate.js';
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
 * How often a refused request (429: the client's budget is spent; 503: the service is
 * overloaded) is asked again, each time after the gate reopens (request-gate.ts): enough for a
 * page of many cards to fill in over a few blocks, while a service that keeps refusing still ends
 * in the error state.
 */
export const RETRIES = 4;

/**
 * Metadata for `url`; otherwise the `reason` of the API's error answer (a string), or null when
 * the request fails, is aborted or answers something else.
 */
export async function fetchMetadata(base: string, url: string, signal: AbortSignal): Promise<Metadata | string | null> {
  for (let retries = RETRIES; ; retries--) {
    try {
      await gate(signal);
      const { data, error, response } = await getMetadata({ baseUrl: base, query: { url }, signal });
      const refusedNow = refused(response);
      if (!metadataProblem(data, '')) return data as Metadata;
      if (refusedNow && retries) continue;
      const reason = (error as { reason?: unknown } | undefined)?.reason;
      return typeof reason == 'string' ? reason : null;
    } catch {
      return null; // a 200 whose body is not JSON, or aborted
    }
  }
}
