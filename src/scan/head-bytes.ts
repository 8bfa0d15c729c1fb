// The bytes of a page's head, read from its body as they arrive: the reading stops once a `<body`
// has come, so the rest of a page is neither downloaded nor scanned (the scan stops at the first
// `<body>` start tag: docs/ARCHITECTURE.md). This is only where to stop reading: what counts as
// `<body>` is the scan's business (a `<body` in a comment or a script is none). When the scan finds
// no `<body>` in the bytes read, reading goes on to the next `<body`, or to the end.
//
// A head too dense in tags to be real also stops the reading early, once: the scan of what was read
// then likely reaches its markup bound (wasm-parser collect-limits.ts), which ends the head there
// whatever follows, so the rest (up to MAX_PAGE_BYTES of it, inflated from a few KB of gzip) is
// never inflated, searched nor handed to a scan thread. When the scan does not reach the bound,
// reading goes on as above. Only the cost depends on this: a scan that reached its bound in the
// bytes read gives what it gives on the whole page.

import { MAX_HANDLED_TAGS } from '../../wasm-parser/collect-limits.js';
import type { PageScan } from './page-scan.js';

/**
 * `<body` as pages write it. Searched natively, for the name and then the `<` before it: a name
 * begins with a letter far rarer in markup than `<`, which a search for `<body` stops at every few
 * bytes (on a head of 2 MB of tags the three searches were 15% of the event loop's time per page,
 * against a search byte by byte in JavaScript, milliseconds). A rarer casing (`<bOdY`) is not
 * looked for: such a page is read to its end, with the same answer.
 */
const BODY_NAMES = ['body', 'BODY', 'Body'].map((name) => Buffer.from(name));
const BODY_TAGS = BODY_NAMES.map((name) => Buffer.concat([Buffer.from('<'), name]));
const LT = 0x3c;
/** Bytes of a chunk's end kept to find a `<body` cut by the chunk's edge. */
const EDGE = BODY_TAGS[0]!.length - 1;

/**
 * The early stop: once this many bytes came with no `<body`, the reading stops if they hold at least
 * DENSE_TAG_OPENS `<` (checked once). A scan's markup bound needs MAX_HANDLED_TAGS tags at least,
 * so fewer `<` could not reach it. The real heads of the test corpus that are this long hold at
 * most 2,756 `<` in their first 256 KB; 2 MB of `<title>x</title>` reaches the bound in 64 KB.
 */
export const EARLY_STOP_BYTES = 128 * 1024;
export const DENSE_TAG_OPENS = MAX_HANDLED_TAGS;

export class HeadBytes {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;
  /** The last EDGE bytes read, for a `<body` cut by a chunk's edge. */
  private edge: Buffer = Buffer.alloc(0);
  /** The body has ended: no more bytes will come. */
  ended = false;
  /** Whether the early stop's density was looked at (it is, once, at EARLY_STOP_BYTES). */
  private densityChecked = false;
  private readonly source: AsyncIterator<Uint8Array>;

  constructor(body: AsyncIterable<Uint8Array>) {
    this.source = body[Symbol.asyncIterator]();
  }

  /**
   * Reads until a `<body` (ASCII case-insensitive) not yet passed, the early stop of a dense head, or
   * the end, and returns every byte read so far, in a buffer of its own (it may be transferred).
   * With `toEnd`, reads to the end.
   */
  async next(toEnd = false): Promise<Uint8Array> {
    while (!this.ended) {
      const next = await this.source.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      const chunk = next.value;
      this.chunks.push(chunk);
      this.length += chunk.length;
      if (this.findsBodyTag(chunk) && !toEnd) break;
      if (!this.densityChecked && this.length >= EARLY_STOP_BYTES) {
        this.densityChecked = true;
        if (!toEnd && this.holdsTagOpens(DENSE_TAG_OPENS)) break;
      }
    }
    return this.bytes();
  }

  /** Every byte read so far, joined into a new buffer. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  /** Whether the bytes read hold at least `count` `<` (counting stops there). */
  private holdsTagOpens(count: number): boolean {
    let left = count;
    for (const chunk of this.chunks) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let at = bytes.indexOf(LT); at !== -1; at = bytes.indexOf(LT, at + 1)) if (--left === 0) return true;
    }
    return false;
  }

  /** Whether a `<body` ends in `chunk` (or begins at the end of the chunk before it). */
  private findsBodyTag(chunk: Uint8Array): boolean {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const across = this.edge.length > 0 ? Buffer.concat([this.edge, bytes.subarray(0, EDGE)]) : null;
    const found = BODY_NAMES.some((name) => startsTag(bytes, name)) || (across !== null && BODY_TAGS.some((tag) => across.indexOf(tag) !== -1));
    // The stream's last EDGE bytes, copied (the chunk's memory is the caller's).
    const last = bytes.length >= EDGE ? bytes.subarray(bytes.length - EDGE) : Buffer.concat([this.edge, bytes]);
    this.edge = Buffer.from(last.subarray(Math.max(0, last.length - EDGE)));
    return found;
  }
}

/**
 * Scans of one page at most: a `<body` that was no start tag (in a comment or a script) makes the
 * reading go on to the next one, and after this many, to the end of the page.
 */
const MAX_SCANS = 3;

/**
 * Reads the head and scans what was read at each stop, until a scan ends the head: at its
 * `<body>`, at its markup bound, or at the page's end. The answer is that of a scan of the whole
 * page; where the reading stops changes only how much is read.
 */
export async function scanAsRead(head: HeadBytes, scan: (bytes: Uint8Array) => Promise<PageScan>): Promise<PageScan> {
  let bytes = await head.next();
  for (let scans = 1; ; scans++) {
    const result = await scan(bytes);
    if (result.stoppedAtBody || result.markupLimit || head.ended) return result;
    bytes = await head.next(scans >= MAX_SCANS);
  }
}

/** Whether `name` comes right after a `<` within `bytes` (one at the very start is the edge's business). */
function startsTag(bytes: Buffer, name: Buffer): boolean {
  for (let at = bytes.indexOf(name, 1); at !== -1; at = bytes.indexOf(name, at + 1)) {
    if (bytes[at - 1] === LT) return true;
  }
  return false;
}
