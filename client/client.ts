// Clients of the generated fetch SDK, made to fail clearly: a client needs the absolute URL of a
// LinkPeek service (the generated default has none, and in Node a request then dies with "Failed
// to parse URL from /v1/metadata"), and `throwOnError` throws LinkPeekHttpError instances instead of
// the bare parsed body the generated client throws.

import { client as defaultClient } from '../generated/client.gen.js';
import { createClient as createGeneratedClient, type Client, type Config } from '../generated/client/index.js';
import { LinkPeekHttpError } from './errors.js';

/** The client operations use when given none: set its base URL with `client.setConfig({ baseUrl })`. */
export const client: Client = withLinkPeekHttpErrors(defaultClient);

/**
 * A client of the LinkPeek service at `baseUrl`, e.g. `createClient({ baseUrl: 'https://linkpeek.example' })`.
 * With `fetch: withRetry()` it retries 429 and 503 answers after their Retry-After (retry.ts).
 */
export function createClient(config: Config & { baseUrl: string }): Client {
  checkBaseUrl(config?.baseUrl);
  return withLinkPeekHttpErrors(createGeneratedClient(config));
}

/** Throws a TypeError naming the problem when `baseUrl` is not an absolute http(s) URL. */
export function checkBaseUrl(baseUrl: unknown): asserts baseUrl is string {
  const fix = "pass the service's absolute URL: createClient({ baseUrl: 'https://linkpeek.example' }), or client.setConfig({ baseUrl })";
  if (baseUrl === undefined || baseUrl === null || baseUrl === '') throw new TypeError(`linkpeek-client: no baseUrl: ${fix}`);
  let protocol: string | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever a JavaScript caller passed is tried as a URL
    protocol = new URL(String(baseUrl)).protocol;
  } catch {
    // not absolute
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(`linkpeek-client: baseUrl ${JSON.stringify(baseUrl)} is not an absolute http(s) URL: ${fix}`);
  }
}

function withLinkPeekHttpErrors(target: Client): Client {
  // Error interceptors see every error body (and fetch's own errors, with no response); what they
  // return is what the call returns in `error`, or throws. Only thrown answers are wrapped.
  target.interceptors.error.use((error, response, request, options) =>
    options.throwOnError && response ? new LinkPeekHttpError(error, response, request) : error,
  );
  return target;
}
