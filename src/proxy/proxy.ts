// The image proxy (docs/SPEC.md, the image proxy endpoint): fetch through safeFetch (same address
// guard, deadline, redirect policy and concurrency cap as every upstream fetch), decide from the
// label, the declared length and the first bytes before any header leaves (a small image is read
// whole first), then stream without buffering the image, each chunk in its turn among every
// client's proxied bytes (byte-scheduler.ts).
//
// Concurrent requests for one image share one upstream fetch (image-flight.ts).
//
// After the 200 has left, the only honest way to report a failure (upstream cut, deadline, more
// than MAX_IMAGE_BYTES, fewer bytes than Content-Length) is to abort the client's connection: the
// body stream errors, and Koa's pipeline destroys the response. A truncated 200 that looks
// complete is never sent.

import type { Context } from 'koa';
import type { Config } from '../config.js';
import { FetchFailed, Overloaded, ProxyRejected } from '../errors.js';
import { failures } from '../failure-reasons.js';
import { FORWARDABLE_RESPONSE_HEADERS, PROXY_ACCEPT, PROXY_PEEK_BYTES, PROXY_RESPONSE_HEADERS } from '../fetch/policy.js';
import { readPrefix } from '../fetch/read-prefix.js';
import type { SafeFetch, SafeFetchResponse } from '../fetch/types.js';
import { mediaTypeEssence } from '../media-type.js';
import { hrefWithoutFragment } from '../url-fragment.js';
import { ByteScheduler, type SchedulerClock } from './byte-scheduler.js';
import { chargedClient } from '../fetch/charge.js';
import { ClientStreams, type Release } from './client-streams.js';
import { ImageFlights, type OpenedImage } from './image-flight.js';
import { detectFormat } from './image-format.js';

/**
 * Upstream image fetches one client has open at once; more would only add unread bytes in socket
 * buffers (client-streams.ts). A page of cards asks for a few images at a time.
 */
const UPSTREAMS_PER_CLIENT = 4;

/** Images up to this size (by Content-Length) are read whole before the headers leave: one chunk's worth. */
const READ_WHOLE_MAX_BYTES = 64 * 1024;

/** The usual body chunk (undici's and a Node stream's 64 KB): the byte scheduler's bucket holds at least one. */
const CHUNK_BYTES = 64 * 1024;

/** Retry-After, in seconds, at most, for an image refused because its share of the budget is too small. */
const MAX_RETRY_AFTER_S = 10;

export interface ProxyDeps {
  safeFetch: SafeFetch;
  config: Pick<Config, 'maxImageBytes' | 'proxyIdleTimeoutMs' | 'proxyBodyTimeoutMs' | 'proxyEgressBytesPerSecond'>;
  /** The clock of the byte scheduler (tests pass a controlled one). */
  clock?: SchedulerClock;
  /**
   * Admits an upstream image fetch for a client (its key) past capacity, as pages are
   * (fairness/load-shedder.ts): throws Overloaded, or returns what ends it. None: all admitted.
   */
  admit?: (client: string | null) => () => void;
}

/** Client-facing messages of the 400s (docs/SPEC.md: not an image, empty, unsupported format). */
export const REJECTIONS = {
  notAnImage: 'The URL does not point to an image.',
  empty: 'The image is empty.',
  unsupported: 'The image format is not supported: only JPEG, PNG, GIF and WebP are proxied.',
} as const;

/** The image proxy as createApp takes it (`deps.proxy`, src/api/handlers.ts ImageProxy), with its flights. */
export type ImageProxyWithFlights = ((ctx: Context, target: URL, client?: string) => Promise<void>) & { flights: ImageFlights };

/**
 * proxyImage bound to its dependencies. Pass the app's own safeFetch, so the proxy shares the
 * instance's fair fetch slots with page fetches.
 */
export function createImageProxy(deps: ProxyDeps): ImageProxyWithFlights {
  const streams = new ClientStreams(UPSTREAMS_PER_CLIENT);
  const scheduler = new ByteScheduler({
    bytesPerSecond: deps.config.proxyEgressBytesPerSecond,
    burstBytes: Math.max(CHUNK_BYTES, deps.config.proxyEgressBytesPerSecond / 20),
    clock: deps.clock,
  });
  const flights = new ImageFlights(scheduler);
  const share: Share = (client) => streamShare(scheduler.bytesPerSecond, streams.clients, streams.held(client));
  return Object.assign((ctx: Context, target: URL, client?: string) => proxyImage(ctx, target, deps, flights, streams, share, client), { flights });
}

/** What a stream of `client` (one it has open) is sent a second now, at least, in bytes (Infinity: no budget). */
type Share = (client: string) => number;

/**
 * One stream's share of the egress budget: the budget in use (`bytesPerSecond`, 0: none) split
 * between the clients with an upstream open, as the byte scheduler splits it when they all have
 * bytes waiting, and the client's part between its own streams. A client whose upstream is slower
 * than its share leaves the rest to the others, so this is what a stream gets at least while the
 * streams open now stay open.
 */
function streamShare(bytesPerSecond: number, clientsStreaming: number, streamsOfClient: number): number {
  if (bytesPerSecond === 0) return Infinity;
  return bytesPerSecond / Math.max(1, clientsStreaming) / Math.max(1, streamsOfClient);
}

/**
 * How many times too long an image of `rest` bytes still to send takes at `share` bytes a second
 * for its body deadline: the whole of it against `totalMs`, and each chunk against `idleMs` (the
 * upstream is not read while a chunk waits for its turn, and the idle deadline counts that wait).
 * Above 1, it cannot end in time.
 */
function pastBodyDeadline(rest: number, share: number, { idleMs, totalMs }: { idleMs: number; totalMs: number }): number {
  if (rest <= 0 || share === Infinity) return 0;
  const allMs = (rest / share) * 1000;
  const chunkMs = (Math.min(rest, CHUNK_BYTES) / share) * 1000;
  return Math.max(allMs / totalMs, chunkMs / idleMs);
}

/**
 * Answers `ctx` with the image at `target` (already checked by parseTarget), fetched on behalf of
 * the client at IP `client` (its fair share of fetch slots) or shared with a fetch of the same
 * image in flight, or throws ProxyRejected (400), FetchFailed (502) or FetchTimeout (504) before
 * any header is sent.
 */
async function proxyImage(
  ctx: Context,
  target: URL,
  deps: ProxyDeps,
  flights: ImageFlights,
  streams: ClientStreams,
  share: Share,
  client?: string,
): Promise<void> {
  const open = async (signal: AbortSignal) => {
    // Past capacity an image is refused (503) before it waits for a stream or a fetch slot.
    const admitted = deps.admit?.(chargedClient(client)) ?? (() => {});
    try {
      const stream = await streams.acquire(client ?? '', signal);
      return await openImage(target, deps, signal, () => (stream(), admitted()), share, client);
    } catch (err) {
      admitted();
      throw err;
    }
  };
  const joined = flights.join(hrefWithoutFragment(target), { client: client ?? '', open });
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) joined.leave();
  });
  const { image, body } = await joined.ready;
  ctx.status = 200;
  ctx.body = body;
  ctx.set(PROXY_RESPONSE_HEADERS);
  // The upstream's type when it agrees with the bytes, the detected one otherwise: both are
  // format.mime (the label was only required to be image/*).
  ctx.set('Content-Type', image.format.mime);
  if (image.length !== null) ctx.set('Content-Length', String(image.length));
  ctx.set(image.headers);
}

/**
 * Fetches `target` and checks its label and first bytes; the image ready to stream, or a throw.
 * `release` gives back the client's upstream slot (client-streams.ts) once the upstream is closed;
 * `share` tells what the image's stream would be sent a second.
 */
async function openImage(target: URL, deps: ProxyDeps, signal: AbortSignal, release: Release, share: Share, client?: string): Promise<OpenedImage> {
  const maxBytes = deps.config.maxImageBytes;
  // The total deadline covers the request and the headers; the body is bounded by its progress,
  // so an image arriving slowly but steadily is not cut after some of it has been sent.
  const bodyDeadline = { idleMs: deps.config.proxyIdleTimeoutMs, totalMs: deps.config.proxyBodyTimeoutMs };
  let fetched: SafeFetchResponse;
  try {
    fetched = await deps.safeFetch(target, { accept: PROXY_ACCEPT, maxBytes, signal, client, bodyDeadline });
  } catch (err) {
    release();
    throw err;
  }
  // Every way the upstream ends goes through its close(): the slot is given back there.
  const upstream: SafeFetchResponse = Object.assign(Object.create(fetched) as SafeFetchResponse, {
    close: () => {
      fetched.close();
      release();
    },
  });
  let streaming = false;
  try {
    // Upstream 4xx and 5xx are upstream failures (502), whatever their body says.
    if (upstream.status < 200 || upstream.status > 299)
      throw new FetchFailed(`upstream status ${upstream.status}`, { failure: failures.httpStatus(upstream.status) });
    // No Range was sent, so a 206 would be a piece of an image passed off as the whole.
    if (upstream.status === 206) throw new FetchFailed('upstream sent 206 to a request without Range', { failure: failures.httpStatus(206) });

    const essence = mediaTypeEssence(upstream.headers['content-type']);
    if (essence === null || !essence.startsWith('image/')) throw new ProxyRejected(REJECTIONS.notAnImage);

    const encoded = upstream.headers['content-encoding'] !== undefined;
    const declared = contentLength(upstream.headers['content-length']);
    // Refused before reading a byte when the upstream admits the size.
    if (declared !== null && declared > maxBytes)
      throw new FetchFailed(`Content-Length ${declared} over MAX_IMAGE_BYTES ${maxBytes}`, { failure: failures.tooLarge(maxBytes) });

    // With a Content-Encoding the declared length counts encoded bytes, not what we send.
    const length = encoded ? null : declared;
    // A small image is read whole before any header leaves (one byte past its length, to see that
    // it ends there), so that a body shorter or longer than it said fails with an error answer, not
    // with a cut after a 200; a larger one only its first bytes.
    const whole = length !== null && length <= READ_WHOLE_MAX_BYTES;
    const { head, rest } = await readPrefix(upstream.body, whole ? length + 1 : PROXY_PEEK_BYTES);
    if (upstream.truncated) throw new FetchFailed(`image over MAX_IMAGE_BYTES ${maxBytes} within its first bytes`, { failure: failures.tooLarge(maxBytes) });
    if (head.length === 0) throw new ProxyRejected(REJECTIONS.empty);
    const format = detectFormat(head);
    if (!format) throw new ProxyRejected(REJECTIONS.unsupported);

    if (length !== null && head.length > length) throw new FetchFailed(`more bytes than the declared Content-Length ${length}`);
    if (length !== null && rest === null && head.length < length) throw new FetchFailed(`body of ${head.length} bytes, Content-Length said ${length}`);
    // An image that its share of the egress budget cannot send before its body deadline would be
    // cut after most of its bytes: refused now instead, while an error answer can still be sent.
    // Only a declared length tells; the rest is sent as it comes.
    // Retry-After grows with how far past it is: a client asking less often lets the share grow.
    if (length !== null && rest !== null) {
      const perSecond = share(client ?? '');
      const past = pastBodyDeadline(length - head.length, perSecond, bodyDeadline);
      if (past > 1) {
        const why = `${length - head.length} bytes at ${Math.round(perSecond)} B/s: ${past.toFixed(1)}× its body deadline`;
        throw new Overloaded(`image refused before its first byte, ${why}`, Math.min(MAX_RETRY_AFTER_S, Math.ceil(past)));
      }
    }
    const headers: Record<string, string> = {};
    for (const name of FORWARDABLE_RESPONSE_HEADERS) {
      const value = upstream.headers[name];
      if (name !== 'content-type' && value !== undefined) headers[name] = value;
    }
    streaming = true;
    return { format, length, headers, bytes: imageBytes(head, rest, upstream, length), close: () => upstream.close() };
  } finally {
    if (!streaming) upstream.close();
  }
}

/**
 * The body towards the clients: the peeked bytes at once (so the headers leave with them), then
 * the rest as it arrives. Throws, and so aborts the clients' connections, when the upstream had
 * more than MAX_IMAGE_BYTES, or a byte count other than the Content-Length it declared.
 *
 * A client deems a response with Content-Length complete at its last byte, so that one byte is
 * held back until the upstream has ended and every check passed: a cut upstream never yields a
 * response that looks whole. Without Content-Length (chunked) completeness is the final empty
 * chunk, which is only sent when this generator returns.
 */
async function* imageBytes(
  head: Uint8Array,
  rest: AsyncIterator<Uint8Array> | null,
  upstream: SafeFetchResponse,
  declared: number | null,
): AsyncGenerator<Uint8Array> {
  let sent = 0;
  let held: Uint8Array | null = null;
  try {
    for (let chunk: Uint8Array | null = head; chunk !== null; chunk = await nextChunk(rest)) {
      if (declared !== null && sent + chunk.length >= declared) {
        if (sent + chunk.length > declared) throw new FetchFailed(`more bytes than the declared Content-Length ${declared}`);
        held = chunk.subarray(chunk.length - 1);
        chunk = chunk.subarray(0, chunk.length - 1);
      }
      if (chunk.length > 0) {
        sent += chunk.length;
        yield chunk;
      }
    }
    if (upstream.truncated) throw new FetchFailed('image over MAX_IMAGE_BYTES, cut mid-stream');
    if (declared !== null && held === null) {
      throw new FetchFailed(`body of ${upstream.bytesRead} bytes, Content-Length said ${declared}`);
    }
    if (held) yield held;
  } finally {
    upstream.close();
  }
}

/** The next chunk, or null at the end (`it` null: the body ended while the head was read). */
async function nextChunk(it: AsyncIterator<Uint8Array> | null): Promise<Uint8Array | null> {
  if (it === null) return null;
  const next = await it.next();
  return next.done ? null : next.value;
}

function contentLength(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : null;
}
