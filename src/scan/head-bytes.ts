// The bytes of a page's head, read from its body as they arrive: the reading stops once a `<body`
// has come, so the rest of a page is neither downloaded nor scanned (the scan stops at the first
// `<body>` start tag: docs/ARCHITECTURE.md). This is only where to stop reading: what counts as
// `<body>` is the scan's business (a `<body` in a comment or a script is none). When the scan finds
// no `<body>` in the bytes read, reading goes on to the next `<body`, or to the end.

/** `<body`, lower-cased. */
const BODY = [0x3c, 0x62, 0x6f, 0x64, 0x79];
const LT = 0x3c;

export class HeadBytes {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;
  /** Bytes of `<body` matched at the end of the bytes read (a match cut by a chunk's end). */
  private matched = 0;
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

  /** Whether `<body` ends in `chunk`, carrying a match cut by its end to the next one. */
  private findsBodyTag(chunk: Uint8Array): boolean {
    let i = 0;
    if (this.matched > 0) {
      // A match begun at the end of the chunk before goes on at this one's start.
      let n = this.matched;
      while (n < BODY.length && i < chunk.length && (chunk[i]! | 0x20) === BODY[n]) {
        n++;
        i++;
      }
      this.matched = n === BODY.length || i < chunk.length ? 0 : n;
      if (n === BODY.length) return true;
      if (this.matched > 0) return false;
    }
    for (let lt = chunk.indexOf(LT, i); lt !== -1; lt = chunk.indexOf(LT, lt + 1)) {
      let n = 1;
      while (n < BODY.length && lt + n < chunk.length && (chunk[lt + n]! | 0x20) === BODY[n]) n++;
      if (n === BODY.length) return true;
      // Cut by the chunk's end: the next chunk says.
      if (lt + n === chunk.length) this.matched = n;
    }
    return false;
  }
}
