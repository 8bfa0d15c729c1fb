// Where the element talks to: the API origin and the two endpoints it uses. The request is typed
// by the operation generated from openapi.yaml (its path and query), so the element and the
// server share one contract; it is sent with fetch() itself, because the generated SDK's runtime
// client is about 4.4 KB gzip, half the element's 9 KB budget, for one GET.
import type { GetMetadataData, Metadata } from '../generated/types.gen.js';
import { metadataProblem } from './metadata-guard.js';
import { gated } from './request-gate.js';
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

/**
 * Metadata for `url`; otherwise the `reason` of the API's error answer (a string), or null when
 * the request fails, is aborted or answers something else. `card` (the first card that shows it)
 * is its turn at the gate.
 */
async function fetchMetadata(base: string, url: string, signal: AbortSignal, card: Element): Promise<Answer> {
  const query: Pick<GetMetadataData['query'], 'url'> = { url };
  for (let retries = RETRIES; ; retries--) {
    try {
      const [response, refused] = await gated(`${base}${METADATA_PATH}?${new URLSearchParams(query)}`, signal, card);
      if (refused && retries) continue;
      const body: unknown = await response.json();
      if (response.ok && !metadataProblem(body, '')) return body as Metadata;
      const reason = (body as { reason?: unknown } | null)?.reason;
      return typeof reason == 'string' ? reason : null;
    } catch {
      return null; // unreachable, a body that is not JSON, or aborted
    }
  }
}

type Flight = { answer: Promise<unknown>; cards: number; stop: AbortController; done?: 1 };

/** The page's requests to the API, by what they ask: the cards that need one answer share it. */
const flights: Record<string, Flight | undefined> = {};

/**
 * The answer `ask` gives for `key`, asked once per page however many cards need it (docs/SPEC.md
 * "Limits": each request spends the reader's budget). A card that leaves (`signal`) stops
 * waiting; the request is aborted once no card waits for it. An answer that is not `kept` (a
 * failure) is forgotten, so a later card asks again.
 */
export function shared<T>(key: string, ask: (stop: AbortSignal) => Promise<T>, kept: (answer: T) => boolean, signal: AbortSignal): Promise<T> {
  let flight = flights[key];
  if (!flight) {
    const stop = new AbortController();
    const answer = ask(stop.signal);
    const started: Flight = (flight = { answer, cards: 0, stop });
    flights[key] = started;
    void answer.then((result) => {
      started.done = 1;
      if (!kept(result) && flights[key] == started) delete flights[key];
    });
  }
  const joined = flight;
  joined.cards++;
  signal.addEventListener('abort', () => {
    if (--joined.cards || joined.done) return;
    joined.stop.abort();
    if (flights[key] == joined) delete flights[key];
  });
  return joined.answer as Promise<T>;
}

/** Metadata for `url` (see fetchMetadata), one request for every card of the page that shows it. */
export const sharedMetadata = (base: string, url: string, signal: AbortSignal, card: Element) =>
  shared(
    `${base} ${url}`,
    (stop) => fetchMetadata(base, url, stop, card),
    (answer) => !!answer && typeof answer == 'object',
    signal,
  );
