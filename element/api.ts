// Where the element talks to: the API origin and the two endpoints it uses. The request is typed
// by the operation generated from openapi.yaml (its path and query), so the element and the
// server share one contract; it is sent with fetch() itself, because the generated SDK's runtime
// client is about 4.4 KB gzip, half the element's 9 KB budget, for one GET.
import type { GetMetadataData, Metadata } from '../generated/types.gen.js';
import { metadataProblem } from './metadata-guard.js';
import { gate, refused } from './request-gate.js';
import { httpUrl } from './safe-url.js';

/** The origin component.js was served from: by default the API lives there too. */
const MODULE_ORIGIN = new URL(import.meta.url).origin;

/** The metadata operation's path, as openapi.yaml names it. */
const METADATA_PATH: GetMetadataData['url'] = '/v1/metadata';

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

type Answer = Metadata | string | null;
type Flight = { answer: Promise<Answer>; cards: number; stop: AbortController; done?: 1 };

/**
 * Metadata for `url`; otherwise the `reason` of the API's error answer (a string), or null when
 * the request fails, is aborted or answers something else.
 */
async function fetchMetadata(base: string, url: string, signal: AbortSignal): Promise<Answer> {
  const query: Pick<GetMetadataData['query'], 'url'> = { url };
  for (let retries = RETRIES; ; retries--) {
    try {
      await gate(signal);
      const response = await fetch(`${base}${METADATA_PATH}?${new URLSearchParams(query)}`, { signal });
      const body: unknown = await response.json();
      if (response.ok && !metadataProblem(body, '')) return body as Metadata;
      if (refused(response) && retries) continue;
      const reason = (body as { reason?: unknown } | null)?.reason;
      return typeof reason == 'string' ? reason : null;
    } catch {
      return null; // unreachable, a body that is not JSON, or aborted
    }
  }
}

/** The page's metadata requests, by API and URL: the cards of one URL share one. */
const flights: Record<string, Flight | undefined> = {};

/**
 * Metadata for `url`, asked once per page however many cards show it (docs/SPEC.md "Limits":
 * each request spends the reader's budget). A card that leaves (`signal`) stops waiting; the
 * request is aborted once no card waits for it. A failure is forgotten, so a later card asks again.
 */
export function sharedMetadata(base: string, url: string, signal: AbortSignal): Promise<Answer> {
  const key = `${base} ${url}`;
  let flight = flights[key];
  if (!flight) {
    const stop = new AbortController();
    const answer = fetchMetadata(base, url, stop.signal);
    const started: Flight = (flight = { answer, cards: 0, stop });
    flights[key] = started;
    void answer.then((result) => {
      started.done = 1;
      if (!(result && typeof result == 'object') && flights[key] == started) delete flights[key];
    });
  }
  const joined = flight;
  joined.cards++;
  signal.addEventListener('abort', () => {
    if (--joined.cards || joined.done) return;
    joined.stop.abort();
    if (flights[key] == joined) delete flights[key];
  });
  return joined.answer;
}
