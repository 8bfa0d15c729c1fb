// One pass of the scan under one charset choice: a fresh lol-html rewriter and tag collector, and
// the decoding that turns the source bytes into the UTF-8 lol-html reads (html-rewriter-wasm reads
// UTF-8 only). A charset switch ends the pass and starts another on the held bytes. The bytes go
// in pieces the pacer sizes and charges (scan-pacer.ts); every pass of one scan shares its pacer.

import { Buffer, isUtf8 } from 'node:buffer';
import { HTMLRewriter } from 'html-rewriter-wasm';
import type { RawTags } from './types.js';
import type { CharsetChoice } from './charset-decision.js';
import { TagCollector } from './collector.js';
import { firstInvalidUtf8, incompleteUtf8Tail } from './charset.js';
import { MIN_PIECE, type ScanPacer } from './scan-pacer.js';

/**
 * What one write showed: nothing yet ('reading'), the first `<body>` start tag ('body'), bytes
 * that are not UTF-8 under a tentative UTF-8 choice ('not-utf8', before any `<body>`: nothing after
 * `<body>` may change the result, the charset included), or the scan's time budget spent before
 * the write was done ('over-budget').
 */
export type PassOutcome = 'reading' | 'body' | 'not-utf8' | 'over-budget';

const utf8Encoder = new TextEncoder();
/** Node's lastIndexOf is a native memrchr; Uint8Array's own loops byte by byte, twenty times slower. */
const { lastIndexOf } = Buffer.prototype as unknown as { lastIndexOf: (this: Uint8Array, value: number) => number };
const LT = 0x3c;
const GT = 0x3e;

export class ScanPass {
  private rewriter: HTMLRewriter | null;
  private readonly collector = new TagCollector();
  /** null: the source is UTF-8 and goes to lol-html as it is. */
  private readonly decoder: TextDecoder | null;
  /** The bytes are UTF-8 only until proved otherwise: each write is checked. */
  private readonly checkUtf8: boolean;
  /** Bytes of a byte order mark not yet skipped. */
  private bomLeft: number;
  /** A UTF-8 sequence cut by a block edge, completed by the next write. */
  private utf8Carry: Uint8Array | null = null;
  /** UTF-8 bytes written into lol-html. */
  private written = 0;
  /** Stream offset of the `<` of a tag still open, or -1; and the one the last write ended in (ScanPass.feed). */
  private openTagAt = -1;
  private lastWriteOpenAt = -1;
  /** Output chunks lol-html handed over during the current write, and the bytes of the writes just before it that gave none. */
  private outputs = 1;
  private lastWriteLength = 0;
  private heldRun = 0;
  /** Set by the first bytes that are not UTF-8 under a tentative UTF-8 choice. */
  private notUtf8 = false;

  /** `onImageUrl` is told the raw URL of each image and icon tag as soon as it is scanned. */
  constructor(
    choice: CharsetChoice,
    onImageUrl: ((rawUrl: string) => void) | null,
    private readonly pacer: ScanPacer,
  ) {
    this.decoder = choice.charset === 'utf-8' ? null : new TextDecoder(choice.charset);
    this.checkUtf8 = choice.basis === 'valid-utf8';
    this.bomLeft = choice.bomLength;
    // The output is the input unchanged; only the number of chunks is kept. lol-html holds back the
    // output of a tag until the tag ends (text, comments and scripts flow out as they come), so
    // writes with no output at all are inside one long tag, however it quotes its `<` and `>`. The
    // count is all that is needed: a sink that read its chunks would slow every scan.
    this.rewriter = new HTMLRewriter(() => void this.outputs++);
    this.collector.attach(this.rewriter);
    this.collector.onImageUrl = onImageUrl;
  }

  /** The label of the page's first charset declaration seen in this pass, or null. */
  get declaredCharset(): string | null {
    return this.collector.declaredCharset;
  }

  /**
   * Writes the next source bytes through this pass's decoding, in the pacer's pieces, each timed;
   * stops when the budget is spent, and waits for the event loop's turn after each slice of work.
   */
  async write(source: Uint8Array): Promise<PassOutcome> {
    const bytes = this.skipBom(source);
    for (let at = 0; at < bytes.length;) {
      if (this.pacer.exhausted) return 'over-budget';
      const turn = this.pacer.turn();
      if (turn !== null) await turn;
      // Inside a long tag (the last write gave no output), small pieces: its length is known a
      // piece at a time (heldBytes). The whole block when it fits (the common case: no view made).
      const size = this.outputs === 0 ? MIN_PIECE : this.pacer.pieceSize;
      const piece = at === 0 && bytes.length <= size ? bytes : bytes.subarray(at, at + size);
      at += piece.length;
      this.pacer.begin();
      const written = this.writePiece(piece);
      if (written !== null) await written;
      this.pacer.charge(piece.length);
      if (this.collector.stopped) return 'body';
      if (this.notUtf8) return 'not-utf8';
    }
    return 'reading';
  }

  /**
   * One piece through the decoding into lol-html: the write to await, or null when there is none.
   * Not async itself: each async layer costs a promise and a microtask turn, for every block.
   */
  private writePiece(bytes: Uint8Array): Promise<void> | null {
    if (this.decoder !== null) {
      const text = this.decoder.decode(bytes, { stream: true });
      return text === '' ? null : this.feed(utf8Encoder.encode(text));
    }
    const complete = this.completeUtf8(bytes);
    if (this.checkUtf8 && !isUtf8(complete)) {
      // The text before the first bad byte still counts: `<body>` there ends the scan as UTF-8.
      this.notUtf8 = true;
      const valid = complete.subarray(0, firstInvalidUtf8(complete));
      return valid.length > 0 ? this.feed(valid) : null;
    }
    return this.feed(complete);
  }

  /**
   * Ends the input: flushes the decoder and lets lol-html emit its last tokens. A UTF-8 sequence
   * cut by the end of the input (a byte cap mid-character) is dropped: it is no evidence against
   * UTF-8 and would only add a U+FFFD.
   */
  async end(): Promise<void> {
    this.pacer.begin();
    const text = this.decoder === null ? '' : this.decoder.decode();
    if (text !== '') await this.feed(utf8Encoder.encode(text));
    await this.live().end();
    this.pacer.charge(0);
  }

  /** The collected tags (the title is joined and decoded once, here). */
  finish(): RawTags {
    return this.collector.finish();
  }

  /** Frees the rewriter; idempotent. lol-html has no stop call: a stop frees it without end(). */
  free(): void {
    const rewriter = this.rewriter;
    if (rewriter === null) return;
    this.rewriter = null;
    try {
      rewriter.free();
    } catch {
      // A trapped instance cannot be freed again; its memory is lost either way, and the scan's
      // own error (if any) is what the caller needs to see.
    }
  }

  private skipBom(bytes: Uint8Array): Uint8Array {
    if (this.bomLeft === 0) return bytes;
    const skip = Math.min(this.bomLeft, bytes.length);
    this.bomLeft -= skip;
    return bytes.subarray(skip);
  }

  /** `bytes` after the carried start of a cut sequence, less a sequence the next write completes. */
  private completeUtf8(source: Uint8Array): Uint8Array {
    let bytes = source;
    if (this.utf8Carry !== null) {
      const joined = new Uint8Array(this.utf8Carry.length + bytes.length);
      joined.set(this.utf8Carry);
      joined.set(bytes, this.utf8Carry.length);
      bytes = joined;
      this.utf8Carry = null;
    }
    const tail = incompleteUtf8Tail(bytes);
    if (tail === 0) return bytes;
    this.utf8Carry = bytes.slice(bytes.length - tail);
    return bytes.subarray(0, bytes.length - tail);
  }

  /**
   * Writes UTF-8 bytes into lol-html (no async layer of its own), noting how long a tag has been
   * open, the longer of two measures: from the last `<` before the write when no `>` came after it
   * (exact, but a quoted `>` misleads it), and the writes just before that gave no output (blind to
   * the part of the tag in the write where it began). The collector reads it only for the first
   * element of a write, the one such a tag would be.
   */
  private feed(bytes: Uint8Array): Promise<void> {
    const start = this.written;
    // The last write: held whole (the tag goes on), or it gave output and its own end says.
    if (this.outputs === 0) this.heldRun += this.lastWriteLength;
    else {
      this.heldRun = 0;
      this.openTagAt = this.lastWriteOpenAt;
    }
    this.outputs = 0;
    this.lastWriteLength = bytes.length;
    // Searched in large writes only: in a small one the held output alone is within a write of exact.
    this.lastWriteOpenAt = bytes.length >= MIN_PIECE ? openTagOffset(bytes, start) : -1;
    this.written += bytes.length;
    // Bytes of a tag still open as this write begins: the longer of the two measures.
    this.collector.newWrite(Math.max(this.heldRun, this.openTagAt < 0 ? 0 : start - this.openTagAt));
    return this.live().write(bytes);
  }

  private live(): HTMLRewriter {
    if (this.rewriter === null) throw new Error('ScanPass: written after free()');
    return this.rewriter;
  }
}

/** Stream offset of the `<` of a tag `bytes` (starting at `start`) ends inside, or -1: its last `<` with no `>` after it. */
function openTagOffset(bytes: Uint8Array, start: number): number {
  const lt = lastIndexOf.call(bytes, LT);
  return lt >= 0 && lt > lastIndexOf.call(bytes, GT) ? start + lt : -1;
}
