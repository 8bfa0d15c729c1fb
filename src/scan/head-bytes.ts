// The bytes of a page's head, read from its body as they arrive: the reading stops once a `<body`
// has come, so the rest of a page is neither downloaded nor scanned (the scan stops at the first
// `<body>` start tag: docs/ARCHITECTURE.md). This is only where to stop reading: what counts as
// `<body>` is the scan's business (a `<body` in a comment or a script is none). When the scan finds
// no `<body>` in the bytes read, reading goes on to the next `<body`, or to the end.

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

export class HeadBytes {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;
  /** The last EDGE bytes read, for a `<body` cut by a chunk's edge. */
  private edge: Buffer = Buffer.alloc(0);
  /** The body has ended: no more bytes will come. */
  ended = false;
  private readonly source: AsyncIterator<Uint8Array>;

  constructor(body: AsyncIterable<Uint8Array>) {
    this.source = body[Symbol.asyncIterator]();
  }

  /**
   * Reads until a `<body` (ASCII case-insensitive) not yet passed, or the end, and returns every byte
   * read so far, in a buffer of its own (it may be transferred). With `toEnd`, reads to the end.
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

/** Whether `name` comes right after a `<` within `bytes` (one at the very start is the edge's business). */
function startsTag(bytes: Buffer, name: Buffer): boolean {
  for (let at = bytes.indexOf(name, 1); at !== -1; at = bytes.indexOf(name, at + 1)) {
    if (bytes[at - 1] === LT) return true;
  }
  return false;
}
