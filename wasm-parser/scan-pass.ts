// One pass of the scan under one charset choice: a fresh lol-html rewriter and tag collector, and
// the decoding that turns the source bytes into the UTF-8 lol-html reads (html-rewriter-wasm reads
// UTF-8 only). A charset switch ends the pass and starts another on the held bytes. Each pass
// counts the tags it gives lol-html and stops at its bounds (collect-limits.ts): what a pass reads depends
// on the bytes alone, never on a clock.

import { Buffer, isUtf8 } from 'node:buffer';
import { HTMLRewriter } from 'html-rewriter-wasm';
import type { RawTags } from './types.js';
import type { CharsetChoice } from './charset-decision.js';
import { TagCollector } from './collector.js';
import { firstInvalidUtf8, incompleteUtf8Tail } from './charset.js';
import { MAX_HANDLED_TAGS, MAX_OPEN_TAG_BYTES, MAX_TAGS } from './collect-limits.js';

/**
 * What one write showed: nothing yet ('reading'), the first `<body>` start tag ('body'), bytes
 * that are not UTF-8 under a tentative UTF-8 choice ('not-utf8', before any `<body>`: nothing after
 * `<body>` may change the result, the charset included), or the head's markup bound reached
 * ('markup-limit': the scan reads no further, as if the head ended there).
 */
export type PassOutcome = 'reading' | 'body' | 'not-utf8' | 'markup-limit';

/**
 * The largest piece written at once (the block splitter's largest block): each write into lol-html
 * has a fixed cost, which smaller pieces pay more often on long heads.
 */
export const MAX_PIECE = 64 * 1024;

/**
 * The piece written while a start tag is open (the last write gave no output): a tag's length is
 * known a piece at a time (TagCollector.heldBytes), so a tag longer than LONG_TAG_BYTES is known
 * as such within this many bytes of it. Fixed sizes: where a piece ends depends on the bytes only.
 */
export const MIN_PIECE = 4 * 1024;

const utf8Encoder = new TextEncoder();
/** Node's indexOf and lastIndexOf are native memchr and memrchr; Uint8Array's own loop byte by byte, twenty times slower. */
const { indexOf, lastIndexOf } = Buffer.prototype as unknown as {
  indexOf: (this: Uint8Array, value: number, from?: number) => number;
  lastIndexOf: (this: Uint8Array, value: number) => number;
};
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
  /** Tags written into lol-html so far, and whether a bound stopped the pass. */
  private tags = 0;
  private handledTags = 0;
  private markupSpent = false;
  /** The last byte written was a `<`: a start tag if the next write begins with a letter. */
  private lastByteWasLt = false;

  /** `onImageUrl` is told the raw URL of each image and icon tag as soon as it is scanned. */
  constructor(choice: CharsetChoice, onImageUrl: ((rawUrl: string) => void) | null) {
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

  /** Writes the next source bytes through this pass's decoding, in pieces whose sizes depend on the bytes alone. */
  async write(source: Uint8Array): Promise<PassOutcome> {
    const bytes = this.skipBom(source);
    for (let at = 0; at < bytes.length;) {
      // Inside a long tag (the last write gave no output), small pieces: its length is known a
      // piece at a time (heldBytes). The whole block when it fits (the common case: no view made).
      const size = this.outputs === 0 ? MIN_PIECE : MAX_PIECE;
      const piece = at === 0 && bytes.length <= size ? bytes : bytes.subarray(at, at + size);
      at += piece.length;
      const written = this.writePiece(piece);
      if (written !== null) await written;
      if (this.markupSpent || this.collector.limited) return 'markup-limit';
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
    const text = this.decoder === null ? '' : this.decoder.decode();
    if (text !== '' && !this.markupSpent) await this.feed(utf8Encoder.encode(text));
    await this.live().end();
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
  private feed(source: Uint8Array): Promise<void> {
    const bytes = this.withinMarkupBound(source);
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
    const held = Math.max(this.heldRun, this.openTagAt < 0 ? 0 : start - this.openTagAt);
    if (held > MAX_OPEN_TAG_BYTES) {
      this.markupSpent = true;
      return Promise.resolve();
    }
    this.collector.newWrite(held);
    return this.live().write(bytes);
  }

  private live(): HTMLRewriter {
    if (this.rewriter === null) throw new Error('ScanPass: written after free()');
    return this.rewriter;
  }

  /**
   * `bytes` up to the tag past MAX_TAGS or MAX_HANDLED_TAGS (the pass then reads no further),
   * counting the tags written. A tag is `<` or `</` and an ASCII letter (HTML's tag open states);
   * one cut by the end of `bytes` is counted with the next write, where its letter is.
   */
  private withinMarkupBound(bytes: Uint8Array): Uint8Array {
    // A `<` ending the last write: its name begins this one (a handled name cut there counts as any tag).
    if (this.lastByteWasLt && bytes.length > 0 && opensTag(bytes[0]!) && !this.countTag(false)) return this.markupBoundAt(bytes, 0);
    for (let lt = indexOf.call(bytes, LT); lt !== -1; lt = indexOf.call(bytes, LT, lt + 1)) {
      if (lt + 1 < bytes.length && opensTag(bytes[lt + 1]!) && !this.countTag(isHandledName(bytes, lt + 1))) return this.markupBoundAt(bytes, lt);
    }
    this.lastByteWasLt = bytes.length > 0 && bytes[bytes.length - 1] === LT;
    return bytes;
  }

  /** Counts one tag; false when it is past a bound. */
  private countTag(handled: boolean): boolean {
    if (++this.tags > MAX_TAGS) return false;
    return !handled || ++this.handledTags <= MAX_HANDLED_TAGS;
  }

  private markupBoundAt(bytes: Uint8Array, end: number): Uint8Array {
    this.markupSpent = true;
    return bytes.subarray(0, end);
  }
}

/** The names of the elements collector.ts handles, lower-cased ASCII. */
const HANDLED_NAMES = ['meta', 'link', 'title', 'base', 'html', 'script'].map((name) => Buffer.from(name));

/** Whether the tag name at `at` is one the collector handles (ASCII case-insensitive, then a byte that ends a name). */
function isHandledName(bytes: Uint8Array, at: number): boolean {
  next: for (const name of HANDLED_NAMES) {
    if (at + name.length > bytes.length) continue;
    for (let i = 0; i < name.length; i++) if ((bytes[at + i]! | 0x20) !== name[i]) continue next;
    const after = bytes[at + name.length];
    // A name cut by the end of the write counts as handled: the bound may only come earlier.
    if (after === undefined || !isNameByte(after)) return true;
  }
  return false;
}

/** A byte that continues a tag name: anything but whitespace, `/` and `>` (HTML's tag name state). */
function isNameByte(byte: number): boolean {
  return byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x2f && byte !== GT;
}

/** The byte after a `<` that opens a tag: an ASCII letter (a start tag) or `/` (an end tag, or nothing costly). */
function opensTag(byte: number): boolean {
  const lower = byte | 0x20;
  return byte === 0x2f || (lower >= 0x61 && lower <= 0x7a);
}

/** Stream offset of the `<` of a tag `bytes` (starting at `start`) ends inside, or -1: its last `<` with no `>` after it. */
function openTagOffset(bytes: Uint8Array, start: number): number {
  const lt = lastIndexOf.call(bytes, LT);
  return lt >= 0 && lt > lastIndexOf.call(bytes, GT) ? start + lt : -1;
}
