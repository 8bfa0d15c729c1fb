// The image probe: what an image URL's first bytes and response headers say, for the
// preview image and the favicon. It reads a header's worth of bytes, never the image: a Range
// request for the first PROBE_BYTES, and when the server ignores Range (200), the same cap on the
// stream, closed as soon as the bytes name the image. Goes through safeFetch, so the SSRF guard,
// the redirect checks and the deadline are those of every other upstream fetch.

import { FetchTimeout } from '../errors.js';
import { readPrefix } from '../fetch/read-prefix.js';
import type { SafeFetch, SafeFetchResponse } from '../fetch/types.js';
import { mediaTypeEssence } from '../media-type.js';
import { isJpeg, jpegFrameReadiness } from './jpeg-frame.js';
import { sniffImage, type SniffedImage } from './sniff.js';

/**
 * Bytes read at most per probe. Measured (test/images/probe.test.ts, "a JPEG header behind a
 * maximal EXIF segment"): image-size finds a PNG, GIF, WebP or ICO size in the first 30 bytes and
 * an SVG's in its root tag, but a JPEG's only at its SOF marker, after every APPn segment. One
 * APP1 (EXIF with its thumbnail) may be 65,535 bytes by itself (its length field is 16 bits), so a
 * camera JPEG with a full EXIF segment plus an ICC profile puts SOF near 69 KB: 64 KiB misses it.
 * 128 KiB covers a maximal EXIF + ICC + a large XMP.
 * The cost stays small because reading stops as soon as the bytes name the image.
 */
export const PROBE_BYTES = 128 * 1024;

/** Unread bytes at most that a probe still reads to keep its connection (finishIfNearlyOver). */
export const DRAIN_BYTES = 16 * 1024;

/** A browser's image Accept (Chromium's <img>): a server that negotiates gives us what the element would show. */
const PROBE_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';

/** The Range of a probe: the first PROBE_BYTES (RFC 9110 14.1.2, "bytes=0-N" with N inclusive). */
export const PROBE_RANGE = `bytes=0-${PROBE_BYTES - 1}`;

/**
 * How a probe ended, and what each means for the fields (enrich-images.ts):
 * - image: the URL answered with an image; type/width/height may fill nulls; cors_safe is known.
 * - not_image: the URL answered, with no image (4xx, 416, empty, HTML...): cors_safe is false.
 * - failed: no usable answer (refused address, network error, 5xx): the fields stay as tagged.
 * - timeout: the budget or the fetch deadline ran out first: the fields stay as tagged.
 */
export type ProbeOutcome = 'image' | 'not_image' | 'failed' | 'timeout';

export type ProbeResult =
  | {
      outcome: 'image';
      /** MIME type by the bytes, else by an image/* Content-Type; null when neither says. */
      type: string | null;
      width: number | null;
      height: number | null;
      corsSafe: boolean;
      status: number;
      bytesRead: number;
    }
  | { outcome: 'not_image'; corsSafe: false; status: number; bytesRead: number }
  | { outcome: 'failed' | 'timeout'; reason: string };

export interface ProbeDeps {
  safeFetch: SafeFetch;
  /** The enrichment budget: aborting it ends the probe at once. */
  signal?: AbortSignal;
  /** The client the probe is done for (SafeFetchOptions.client). */
  client?: string;
}

/** Probes one image URL; never throws (a failure is a result). */
export async function probeImage(url: URL, { safeFetch, signal, client }: ProbeDeps): Promise<ProbeResult> {
  let res: SafeFetchResponse;
  try {
    res = await safeFetch(url, { accept: PROBE_ACCEPT, headers: { range: PROBE_RANGE }, maxBytes: PROBE_BYTES, signal, client });
  } catch (err) {
    return failure(err, signal);
  }
  try {
    const verdict = statusVerdict(res);
    if (verdict !== 'read') return verdict === 'not_image' ? notImage(res) : { outcome: 'failed', reason: `upstream status ${res.status}` };

    let sniffing: Sniffing;
    try {
      sniffing = await readUntilSniffed(res);
    } catch (err) {
      // Cut off before the bytes said anything: no answer about the image.
      return failure(err, signal);
    }
    const { head, sniffed, rest } = sniffing;
    if (rest) await finishIfNearlyOver(res, rest);
    const labelled = imageContentType(res.headers['content-type']);
    if (sniffed) {
      return { outcome: 'image', ...sniffed, corsSafe: corsSafe(res.headers), status: res.status, bytesRead: res.bytesRead };
    }
    // Bytes image-size cannot size (an SVG with no width, height or viewBox; a JPEG whose SOF lies
    // past PROBE_BYTES) are still an image when the server labels them so and they are no page.
    if (labelled !== null && head.length > 0 && !looksLikeHtml(head)) {
      return { outcome: 'image', type: labelled, width: null, height: null, corsSafe: corsSafe(res.headers), status: res.status, bytesRead: res.bytesRead };
    }
    return notImage(res);
  } finally {
    res.close();
  }
}

/**
 * What a status means for a probe, as data (RFC 9110 section 15):
 * - 200 (Range ignored) and 206 (honoured) carry the first bytes; any other 2xx is read too and
 *   judged by its bytes (204 has none: no image).
 * - 416 Range Not Satisfiable for bytes=0-N means the representation is empty (RFC 9110 14.1.2:
 *   a range starting at 0 is satisfiable whenever there is one byte): no image.
 * - other 4xx (404, 410, 403...): the URL gives no image to a browser either.
 * - 5xx and the rest (300, 304...): a server's trouble says nothing about the image: failed.
 */
function statusVerdict(res: SafeFetchResponse): 'read' | 'not_image' | 'failed' {
  const { status } = res;
  if (status === 206) return startsAtZero(res.headers['content-range']) ? 'read' : 'failed';
  if (status >= 200 && status < 300) return 'read';
  if (status >= 400 && status < 500) return 'not_image';
  return 'failed';
}

/** A 206 must start at byte 0 (we asked for bytes=0-N); bytes from elsewhere are no header. */
function startsAtZero(contentRange: string | undefined): boolean {
  return contentRange !== undefined && /^\s*bytes\s+0-\d+\/(\d+|\*)\s*$/i.test(contentRange);
}

/**
 * Reads until image-size names the image, the cap (PROBE_BYTES, also safeFetch's maxBytes) or the
 * end. Stopping early closes the upstream, so an ignored Range costs one header, not the file.
 * image-size is asked only when an answer is possible and never twice on nearly the same bytes:
 * a JPEG once its frame header is in hand (jpeg-frame.ts), any other format at the first chunk
 * and then each time the bytes have doubled, and at the end: at most about twice the work of one
 * call on all the bytes, whatever the chunking.
 */
async function readUntilSniffed(res: SafeFetchResponse): Promise<Sniffing> {
  // verdict undefined: the bytes so far cannot tell yet; null: they never will.
  const sniff: { triedAt: number; verdict: SniffedImage | null | undefined } = { triedAt: 0, verdict: undefined };
  const { head, rest } = await readPrefix(res.body, PROBE_BYTES, (bytes) => {
    if (isJpeg(bytes)) {
      const readiness = jpegFrameReadiness(bytes);
      if (readiness === 'more') return false;
      // Ready: image-size's one try. Never: more bytes cannot help.
      sniff.verdict = readiness === 'ready' ? sniffPrefix(bytes) : null;
      return true;
    }
    if (bytes.length < 2 * sniff.triedAt) return false;
    sniff.triedAt = bytes.length;
    sniff.verdict = sniffPrefix(bytes) ?? undefined;
    return sniff.verdict !== undefined;
  });
  if (sniff.verdict !== undefined) return { head, sniffed: sniff.verdict, rest };
  const last = head.length > sniff.triedAt && !isJpeg(head) ? sniffPrefix(head) : null;
  return { head, sniffed: last, rest: null };
}

interface Sniffing {
  head: Uint8Array;
  sniffed: SniffedImage | null;
  /** The unread body, when reading stopped before its end because the bytes had told. */
  rest: AsyncIterator<Uint8Array> | null;
}

/**
 * Reads the rest of a body that is nearly over, so its connection goes back to the pool instead of
 * being cut (a small favicon or a 206 whose last bytes are already in flight): the next probe or
 * page of that host skips a TCP and TLS handshake. Measured with bench/probe-cost.ts. A longer or
 * unsized (chunked, encoded) rest is not worth the wait and is closed.
 */
async function finishIfNearlyOver(res: SafeFetchResponse, rest: AsyncIterator<Uint8Array>): Promise<void> {
  const length = res.headers['content-encoding'] ? NaN : Number(res.headers['content-length'] ?? NaN);
  const left = length - res.bytesRead;
  if (!(left >= 0 && left <= DRAIN_BYTES)) return;
  try {
    while (!(await rest.next()).done);
  } catch {
    // A drain that fails changes nothing: the result is already known.
  }
}

/**
 * sniffImage on exactly these bytes. image-size 2.1 reads numbers through
 * `new DataView(input.buffer, input.byteOffset + offset)`, without the view's length, so on a
 * prefix that is a view into a larger buffer (a body chunk, a pooled Buffer.concat) it reads the
 * bytes after it and can report a size the prefix does not hold. A copy with an ArrayBuffer of its
 * own makes a read past the end throw, which sniffImage turns into "no image".
 */
export function sniffPrefix(head: Uint8Array): SniffedImage | null {
  const exact = new Uint8Array(new ArrayBuffer(head.length));
  exact.set(head);
  return sniffImage(exact);
}

/**
 * docs/SPEC.md ImageMetadata.cors_safe: true only for `Access-Control-Allow-Origin: *`. A named origin
 * is false: the element runs on arbitrary origins, and the origin the server named is not theirs
 * (the Fetch Standard's CORS check compares it byte for byte with the requesting origin). Absent,
 * `null`, or several values (browsers refuse a list) are false too.
 */
function corsSafe(headers: Record<string, string>): boolean {
  return headers['access-control-allow-origin']?.trim() === '*';
}

function notImage(res: SafeFetchResponse): ProbeResult {
  return { outcome: 'not_image', corsSafe: false, status: res.status, bytesRead: res.bytesRead };
}

function failure(err: unknown, signal: AbortSignal | undefined): ProbeResult {
  const reason = err instanceof Error ? err.message : String(err);
  return { outcome: signal?.aborted || err instanceof FetchTimeout ? 'timeout' : 'failed', reason };
}

/** An image/* Content-Type, essence only; anything else (octet-stream, text/html) → null. */
function imageContentType(raw: string | undefined): string | null {
  const essence = mediaTypeEssence(raw);
  return essence !== null && essence.startsWith('image/') ? essence : null;
}

/** An HTML page served under an image label (a soft 404): it starts with a page's first tag. */
function looksLikeHtml(head: Uint8Array): boolean {
  const start = Buffer.from(head.subarray(0, 512)).toString('latin1');
  return /^\s*<(!doctype\s+html|html|head|body|title|meta)\b/i.test(start.replace(/^\uFEFF|^\xEF\xBB\xBF/, ''));
}
