// The streaming head scanner: bytes in through write(chunk) / end(), RawTags out (DESIGN.md
// "wasm-parser/", STYLE.md 7). States:
//   scanning  → stopped  (the first `<body>` start tag: no more bytes are written; issue 3)
//   scanning  → ended    (end() with no `<body>`: lol-html's end() flushes the last tokens)
//   any       → disposed (the rewriter is freed exactly once: success, error or early stop)
// Bytes are processed in blocks at fixed offsets of the stream (each block's size depends only on
// where it starts), so where `<body>` stops the scan, and so `bytesConsumed`, do not depend on how
// the caller cut its chunks.
// A change of charset (charset.ts) restarts the pass on the bytes already held.

import { isUtf8 } from 'node:buffer';
import { HTMLRewriter } from 'html-rewriter-wasm';
import type { ScanResult } from './types.js';
import { TagCollector } from './collector.js';
import {
  type CharsetBasis,
  charsetOfContentType,
  encodingForDeclaredLabel,
  encodingForLabel,
  firstInvalidUtf8,
  incompleteUtf8Tail,
  sniffBom,
  utf8Evidence,
} from './charset.js';

export interface HeadScannerOptions {
  /** The HTTP Content-Type of the response; its charset parameter is one source (charset.ts). */
  contentType?: string | null;
  /** Bytes of the first blocks; the granularity of the stop at `<body>` in a short head. */
  blockSize?: number;
  /** The largest block a long head grows to. */
  maxBlockSize?: number;
  /**
   * The caller never changes a chunk after writing it (a stream's chunks are fresh memory each
   * time): bytes held for a charset re-scan then point into the chunks instead of being copied.
   */
  retainChunks?: boolean;
  /** Told the raw URL of each image and icon tag as soon as it is scanned, before the head ends. */
  onImageUrl?: (rawUrl: string) => void;
}

/**
 * 2 KiB: small next to real heads (the corpus median head is ~20 KB; bench:extract reports it), so
 * a short head stops within 2 KiB of its `<body>`.
 */
export const DEFAULT_BLOCK_SIZE = 2048;

/**
 * A long head (inline scripts and styles: a tenth of the corpus reads past 500 KB before `<body>`)
 * is written in larger blocks: an eighth of what was read so far, up to 64 KiB. Every write into
 * lol-html has a fixed cost (the asyncify wrapper, a copy into wasm memory, output callbacks):
 * measured on a 990 KB head, 2 KiB blocks took 5.5 ms and 64 KiB blocks 2.4 ms. Growing by an
 * eighth keeps the overshoot past `<body>` within an eighth of the bytes before it.
 */
export const MAX_BLOCK_SIZE = 64 * 1024;

const utf8Encoder = new TextEncoder();
const ignoreOutput = (): void => {};

interface CharsetChoice {
  charset: string;
  basis: CharsetBasis;
}

export class HeadScanner {
  private readonly blockSize: number;
  private readonly maxBlockSize: number;
  private readonly retainChunks: boolean;
  private readonly httpCharset: string | null;
  private readonly onImageUrl: ((rawUrl: string) => void) | null;

  private choice: CharsetChoice | null = null; // null until the first block is seen (BOM sniff)
  private rewriter: HTMLRewriter | null = null;
  private collector = new TagCollector();
  private decoder: TextDecoder | null = null; // null: UTF-8 bytes go to lol-html as they are
  private utf8Carry: Uint8Array | null = null; // a UTF-8 sequence cut by a block edge
  private bomLength = 0;

  /** Source blocks processed so far, kept while a charset change could still re-scan them. */
  private held: Uint8Array[] = [];
  private holding = true;
  private pending: Uint8Array | null = null; // the start of the next, incomplete block
  private pendingLength = 0;
  private processed = 0;
  private pendingSwitch: CharsetChoice | null = null;
  private state: 'scanning' | 'stopped' | 'ended' | 'disposed' = 'scanning';

  constructor(options: HeadScannerOptions = {}) {
    this.blockSize = Math.max(16, Math.floor(options.blockSize ?? DEFAULT_BLOCK_SIZE));
    this.maxBlockSize = Math.max(this.blockSize, Math.floor(options.maxBlockSize ?? MAX_BLOCK_SIZE));
    this.retainChunks = options.retainChunks ?? false;
    this.onImageUrl = options.onImageUrl ?? null;
    const label = charsetOfContentType(options.contentType);
    this.httpCharset = label === null ? null : encodingForLabel(label);
  }

  /** True once `<body>` was seen: the caller should stop reading its source. */
  get stopped(): boolean {
    return this.state === 'stopped';
  }

  /**
   * Feeds the next bytes. Resolves true when the scan has stopped at `<body>` (the rest of
   * `chunk` and anything written later is ignored). The bytes are copied where they must outlive
   * the call, so the caller may reuse its buffer (unless it promised not to: `retainChunks`).
   */
  async write(chunk: Uint8Array): Promise<boolean> {
    if (this.state !== 'scanning') return this.state === 'stopped';
    let at = 0;
    if (this.pending !== null) {
      const take = Math.min(this.pending.length - this.pendingLength, chunk.length);
      this.pending.set(chunk.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      at = take;
      if (this.pendingLength < this.pending.length) return false;
      const block = this.pending;
      this.pending = null;
      this.pendingLength = 0;
      if (await this.processBlock(block, true)) return true;
    }
    // Whole blocks straight from the caller's chunk (copied only if held for a re-scan).
    for (let size = this.blockAt(this.processed); chunk.length - at >= size; size = this.blockAt(this.processed)) {
      if (await this.processBlock(chunk.subarray(at, at + size), false)) return true;
      at += size;
    }
    if (at < chunk.length) {
      this.pending = new Uint8Array(this.blockAt(this.processed));
      this.pending.set(chunk.subarray(at));
      this.pendingLength = chunk.length - at;
    }
    return false;
  }

  /** The size of the block that starts at `offset` (MAX_BLOCK_SIZE): a function of the offset alone. */
  private blockAt(offset: number): number {
    const grown = Math.floor(offset / 8 / this.blockSize) * this.blockSize;
    return Math.min(this.maxBlockSize, Math.max(this.blockSize, grown));
  }

  /** Ends the input (or confirms the stop) and returns the result; frees the rewriter. */
  async end(): Promise<ScanResult> {
    try {
      if (this.state === 'scanning') {
        if (this.pending !== null) {
          const last = this.pending.subarray(0, this.pendingLength);
          this.pending = null;
          await this.processBlock(last, true);
        }
        if (this.state === 'scanning') {
          if (this.choice === null) this.choose(new Uint8Array(0));
          // A UTF-8 sequence cut by the end of the input (a byte cap mid-character) is dropped:
          // it is no evidence against UTF-8 and would only add a U+FFFD.
          if (this.decoder !== null) await this.writeText(this.decoder.decode());
          await this.ensureRewriter().end();
          this.state = 'ended';
        }
      }
      if (this.state === 'disposed') throw new Error('HeadScanner: end() after dispose()');
      return {
        tags: this.collector.finish(),
        bytesConsumed: this.processed,
        stoppedAtBody: this.state === 'stopped',
        charset: this.choice?.charset ?? 'utf-8',
      };
    } finally {
      this.dispose();
    }
  }

  /** Frees the WebAssembly side; idempotent. Called by end(), and by callers on error. */
  dispose(): void {
    this.freeRewriter();
    this.held = [];
    this.pending = null;
    if (this.state === 'scanning') this.state = 'disposed';
  }

  /** Processes one source block (`owned`: ours, not the caller's); true when stopped at `<body>`. */
  private async processBlock(block: Uint8Array, owned: boolean): Promise<boolean> {
    if (this.choice === null) this.choose(block);
    // A copy, also of a Buffer (whose slice() is a view into the caller's memory).
    if (this.holding) this.held.push(owned || this.retainChunks ? block : Uint8Array.prototype.slice.call(block));
    this.processed += block.length;
    await this.feed(block, this.processed === block.length);
    // A charset declaration found by this pass may call for a different decoding: restart on
    // the held bytes. Each switch moves down charset.ts's order, so this ends.
    while (this.pendingSwitch !== null && this.state === 'scanning') {
      const next = this.pendingSwitch;
      this.pendingSwitch = null;
      await this.restart(next);
    }
    return this.state === 'stopped';
  }

  /** Writes one source block through the current decoding; switches charset on invalid UTF-8. */
  private async feed(block: Uint8Array, first: boolean): Promise<void> {
    let bytes = first && this.bomLength > 0 ? block.subarray(this.bomLength) : block;
    if (this.decoder !== null) {
      await this.writeText(this.decoder.decode(bytes, { stream: true }));
      return;
    }
    if (this.utf8Carry !== null) {
      const joined = new Uint8Array(this.utf8Carry.length + bytes.length);
      joined.set(this.utf8Carry);
      joined.set(bytes, this.utf8Carry.length);
      bytes = joined;
      this.utf8Carry = null;
    }
    const tail = incompleteUtf8Tail(bytes);
    const complete = tail > 0 ? bytes.subarray(0, bytes.length - tail) : bytes;
    if (tail > 0) this.utf8Carry = bytes.slice(bytes.length - tail);
    if (this.choice?.basis === 'valid-utf8' && !isUtf8(complete)) {
      // The bytes are not UTF-8 after all, unless `<body>` comes before the first bad byte:
      // nothing after `<body>` may change the result, the charset included.
      const valid = complete.subarray(0, firstInvalidUtf8(complete));
      if (valid.length > 0) {
        await this.ensureRewriter().write(valid);
        this.stopIfBodySeen();
        if (this.state !== 'scanning') return;
      }
      // Fall to the declared charsets (charset.ts 3–5).
      this.pendingSwitch = this.afterInvalidUtf8();
      return;
    }
    await this.ensureRewriter().write(complete);
    this.stopIfBodySeen();
  }

  private async writeText(text: string): Promise<void> {
    if (text === '') return;
    await this.ensureRewriter().write(utf8Encoder.encode(text));
    this.stopIfBodySeen();
  }

  /** The first decision, on the first block: a BOM decides for good, else UTF-8 until disproved. */
  private choose(first: Uint8Array): void {
    const bom = sniffBom(first);
    if (bom !== null) {
      this.bomLength = bom.length;
      this.apply({ charset: bom.charset, basis: 'bom' });
    } else {
      this.apply({ charset: 'utf-8', basis: 'valid-utf8' });
    }
  }

  /**
   * The choice once the bytes proved not to be UTF-8. A declared charset other than UTF-8 is taken
   * (HTTP first); a UTF-8 label the bytes disprove comes after the other label. With UTF-8 the
   * only label, UTF-8 is kept, lossy, when the bytes held so far are mostly UTF-8 (more valid
   * multi-byte sequences than bad bytes: a stray byte in a UTF-8 page reads better as one U+FFFD
   * than as windows-1252 mojibake); windows-1252 text labelled UTF-8 has no valid multi-byte
   * sequence at all. Both of those stay tentative: a later `<meta>` naming another charset decides.
   */
  private afterInvalidUtf8(): CharsetChoice {
    const usable = (name: string | null): name is string => name !== null && name !== 'utf-8';
    if (usable(this.httpCharset)) return { charset: this.httpCharset, basis: 'http' };
    const declared = this.collector.declaredCharset === null ? null : encodingForDeclaredLabel(this.collector.declaredCharset);
    if (usable(declared)) return { charset: declared, basis: 'meta' };
    if (this.httpCharset === 'utf-8' || declared === 'utf-8') {
      const evidence = utf8Evidence(this.held);
      if (evidence.multiByte > evidence.invalid) return { charset: 'utf-8', basis: 'default' };
    }
    return { charset: 'windows-1252', basis: 'default' };
  }

  private apply(choice: CharsetChoice): void {
    this.choice = choice;
    this.decoder = choice.charset === 'utf-8' ? null : new TextDecoder(choice.charset);
    this.utf8Carry = null;
    // Only the tentative choices can still change; after a final one nothing is re-scanned.
    this.holding = choice.basis === 'valid-utf8' || choice.basis === 'default';
    if (!this.holding) this.held = [];
  }

  /** Starts a fresh pass under `choice` and replays the held blocks through it. */
  private async restart(choice: CharsetChoice): Promise<void> {
    const replay = this.held;
    this.freeRewriter();
    this.collector = new TagCollector();
    this.apply(choice);
    if (this.holding) this.held = replay;
    for (let i = 0; i < replay.length && this.state === 'scanning' && this.pendingSwitch === null; i++) {
      await this.feed(replay[i]!, i === 0);
    }
  }

  private ensureRewriter(): HTMLRewriter {
    if (this.rewriter !== null) return this.rewriter;
    const rewriter = new HTMLRewriter(ignoreOutput);
    this.rewriter = rewriter;
    const collector = this.collector;
    collector.attach(rewriter);
    collector.onImageUrl = this.onImageUrl;
    // In the tentative windows-1252 pass, the page's own declaration decides (charset.ts 4).
    collector.onCharsetDeclared = (label) => {
      if (this.choice?.basis !== 'default') return;
      const declared = encodingForDeclaredLabel(label);
      if (declared !== null && declared !== 'utf-8' && declared !== this.choice.charset) {
        this.pendingSwitch = { charset: declared, basis: 'meta' };
      } else if (declared !== null && declared !== 'utf-8') {
        // The page declares the charset we already guessed: settled.
        this.choice = { charset: declared, basis: 'meta' };
        this.holding = false;
        this.held = [];
      }
    };
    return rewriter;
  }

  private stopIfBodySeen(): void {
    // A charset switch found in the same block wins: the restarted pass finds `<body>` again.
    if (!this.collector.stopped || this.pendingSwitch !== null) return;
    this.state = 'stopped';
    // lol-html has no stop call: free without end() (PITFALLS.md html-rewriter-wasm).
    this.freeRewriter();
  }

  private freeRewriter(): void {
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
}
