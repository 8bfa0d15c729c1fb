// One pass of the scan under one charset choice: a fresh lol-html rewriter and tag collector, and
// the decoding that turns the source bytes into the UTF-8 lol-html reads (html-rewriter-wasm reads
// UTF-8 only). A charset switch ends the pass and starts another on the held bytes.

import { isUtf8 } from 'node:buffer';
import { HTMLRewriter } from 'html-rewriter-wasm';
import type { RawTags } from './types.js';
import type { CharsetChoice } from './charset-decision.js';
import { TagCollector } from './collector.js';
import { firstInvalidUtf8, incompleteUtf8Tail } from './charset.js';

/**
 * What one write showed: nothing yet ('reading'), the first `<body>` start tag ('body'), or bytes
 * that are not UTF-8 under a tentative UTF-8 choice ('not-utf8', before any `<body>`: nothing after
 * `<body>` may change the result, the charset included).
 */
export type PassOutcome = 'reading' | 'body' | 'not-utf8';

const utf8Encoder = new TextEncoder();
const ignoreOutput = (): void => {};

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

  /** `onImageUrl` is told the raw URL of each image and icon tag as soon as it is scanned. */
  constructor(choice: CharsetChoice, onImageUrl: ((rawUrl: string) => void) | null) {
    this.decoder = choice.charset === 'utf-8' ? null : new TextDecoder(choice.charset);
    this.checkUtf8 = choice.basis === 'valid-utf8';
    this.bomLeft = choice.bomLength;
    this.rewriter = new HTMLRewriter(ignoreOutput);
    this.collector.attach(this.rewriter);
    this.collector.onImageUrl = onImageUrl;
  }

  /** The label of the page's first charset declaration seen in this pass, or null. */
  get declaredCharset(): string | null {
    return this.collector.declaredCharset;
  }

  /**
   * Writes the next source bytes through this pass's decoding. One await per write: the scanner
   * calls this for every block, and each async layer costs a promise and a microtask turn.
   */
  async write(source: Uint8Array): Promise<PassOutcome> {
    const bytes = this.skipBom(source);
    if (this.decoder !== null) {
      const text = this.decoder.decode(bytes, { stream: true });
      if (text === '') return 'reading';
      await this.live().write(utf8Encoder.encode(text));
      return this.collector.stopped ? 'body' : 'reading';
    }
    const complete = this.completeUtf8(bytes);
    if (this.checkUtf8 && !isUtf8(complete)) {
      // The text before the first bad byte still counts: `<body>` there ends the scan as UTF-8.
      const valid = complete.subarray(0, firstInvalidUtf8(complete));
      if (valid.length > 0) await this.live().write(valid);
      return this.collector.stopped ? 'body' : 'not-utf8';
    }
    await this.live().write(complete);
    return this.collector.stopped ? 'body' : 'reading';
  }

  /**
   * Ends the input: flushes the decoder and lets lol-html emit its last tokens. A UTF-8 sequence
   * cut by the end of the input (a byte cap mid-character) is dropped: it is no evidence against
   * UTF-8 and would only add a U+FFFD.
   */
  async end(): Promise<void> {
    const text = this.decoder === null ? '' : this.decoder.decode();
    if (text !== '') await this.live().write(utf8Encoder.encode(text));
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

  private live(): HTMLRewriter {
    if (this.rewriter === null) throw new Error('ScanPass: written after free()');
    return this.rewriter;
  }
}
