// The body of the response safeFetch hands out (fetcher.ts): decoded, counted against maxBytes,
// and holding the fetch's limiter slot and deadline until it ends, is closed, or the deadline
// passes. Reading it to the end returns the connection to the pool; anything else aborts it.

import { Readable } from 'node:stream';
import type { Agent } from 'undici';
import { FetchFailed } from '../errors.js';
import { contentCodings, decodeBody } from './decode.js';
import { toFetchError } from './classify-error.js';
import type { FetchDeadline } from './fetch-deadline.js';
import type { FetchTimings } from './timings.js';
import type { SafeFetchOptions, SafeFetchResponse } from './types.js';

export type UndiciResponse = Awaited<ReturnType<Agent['request']>>;

/**
 * Wraps the final response: decoded body, counted against `maxBytes`. The slot and the deadline
 * stay with the body until it ends, is closed, or the deadline passes.
 */
export function readable(
  url: URL,
  response: UndiciResponse,
  maxBytes: number,
  deadline: FetchDeadline,
  timings: FetchTimings,
  bodyDeadline?: SafeFetchOptions['bodyDeadline'],
): SafeFetchResponse {
  if (bodyDeadline) deadline.forBody(bodyDeadline);
  const headers = flattenHeaders(response.headers);
  const decoded = decodeBody(response.body, contentCodings(headers['content-encoding']));
  let bytesRead = 0;
  let truncated = false;

  async function* capped(): AsyncGenerator<Uint8Array> {
    let complete = false;
    try {
      for await (const chunk of withoutDestroyOnReturn(decoded)) {
        const room = maxBytes - bytesRead;
        if (chunk.length > room) {
          // More than maxBytes: hand out what fits, then close the upstream (at most
          // maxBytes of decompressed body is read). The decoder produces no more than one
          // chunk ahead, so a compression bomb costs about maxBytes of work.
          truncated = true;
          if (room > 0) {
            bytesRead += room;
            yield chunk.subarray(0, room);
          }
          break;
        }
        bytesRead += chunk.length;
        deadline.progress();
        yield chunk;
      }
      complete = !truncated;
    } catch (err) {
      throw toFetchError(err, 'body', deadline, url.hostname);
    } finally {
      // Read to the end: the connection goes back to the pool. Otherwise (cap, caller stopped
      // reading, error): abort, which closes the HTTP/1.1 connection or resets the HTTP/2 stream.
      deadline.end(complete ? undefined : () => new FetchFailed('body closed before its end'));
    }
  }

  return {
    url,
    status: response.statusCode,
    headers,
    timings: timings.snapshot(),
    body: capped(),
    get truncated() {
      return truncated;
    },
    get bytesRead() {
      return bytesRead;
    },
    close() {
      deadline.end(() => new FetchFailed('closed by the caller'));
    },
  };
}

/**
 * A stream's async iterator destroys the stream when the reader stops early, with a fresh
 * AbortError whose stack trace Node formats at once (about 3% of the CPU of an uncached page, which
 * always stops at `<body>`). capped()'s finally aborts the request anyway, which destroys the body
 * with that reason; so a Readable is read without that destroy. Other iterables are read as they are.
 */
function withoutDestroyOnReturn(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  return body instanceof Readable ? body.iterator({ destroyOnReturn: false }) : body;
}

function flattenHeaders(raw: UndiciResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
