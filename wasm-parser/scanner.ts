// The streaming head scanner: bytes in through write(chunk) / end(), RawTags out.
// It connects three parts: the block splitter (fixed stream offsets), the charset decision, and a
// scan pass per charset choice. No clock: what is read depends on the bytes alone. States:
//   scanning → stopped  (the first `<body>` start tag: no more bytes are written)
//   scanning → cut      (the head's markup bound reached: no more bytes are written; the tags found stand)
//   scanning → ended    (end() with no `<body>`: lol-html's end() flushes the last tokens)
//   scanning → disposed (dispose() before end(): the result is gone)
// The rewriter is freed exactly once on every path: stop, end, error or dispose().

import type { ScanResult } from './types.js';
import { BlockSplitter, type Block } from './block-splitter.js';
import { CharsetDecision, type CharsetSwitch } from './charset-decision.js';
import { type PassOutcome, ScanPass } from './scan-pass.js';

export interface HeadScannerOptions {
  /** The charset parameter of the response's Content-Type, as the caller read it: one source (charset.ts). */
  httpCharset?: string | null;
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

type ScannerState = 'scanning' | 'stopped' | 'cut' | 'ended' | 'disposed';

export class HeadScanner {
  private readonly splitter: BlockSplitter;
  private readonly decision: CharsetDecision;
  /** The pass under the current charset; null until the first block (the BOM sniff needs it). */
  private pass: ScanPass | null = null;
  private state: ScannerState = 'scanning';
  private readonly onImageUrl: ((rawUrl: string) => void) | null;

  constructor(options: HeadScannerOptions = {}) {
    this.splitter = new BlockSplitter(options);
    this.decision = new CharsetDecision(options.httpCharset);
    this.onImageUrl = options.onImageUrl ?? null;
  }

  /** True once `<body>` was seen or the markup bound reached: the caller should stop reading its source. */
  get stopped(): boolean {
    return this.state === 'stopped' || this.state === 'cut';
  }

  /** Read through a getter: the state changes across the awaits of one call. */
  private get scanning(): boolean {
    return this.state === 'scanning';
  }

  /**
   * Feeds the next bytes. Resolves true when the scan has stopped at `<body>` (the rest of
   * `chunk` and anything written later is ignored). The bytes are copied where they must outlive
   * the call, so the caller may reuse its buffer (unless it promised not to: `retainChunks`).
   */
  async write(chunk: Uint8Array): Promise<boolean> {
    if (!this.scanning) return this.stopped;
    for (const block of this.splitter.blocks(chunk)) {
      await this.process(block);
      if (!this.scanning) break;
    }
    return this.stopped;
  }

  /** Ends the input (or confirms the stop) and returns the result; frees the rewriter. */
  async end(): Promise<ScanResult> {
    try {
      if (this.scanning) {
        const last = this.splitter.finish();
        if (last !== null) await this.process(last);
      }
      if (this.scanning) {
        await (this.pass ?? this.begin(new Uint8Array(0))).end();
        this.state = 'ended';
      }
      if (this.state === 'disposed' || this.pass === null) throw new Error('HeadScanner: end() after dispose()');
      return {
        tags: this.pass.finish(),
        bytesConsumed: this.splitter.consumed,
        stoppedAtBody: this.state === 'stopped',
        charset: this.decision.charset,
        ...(this.state === 'cut' ? { markupLimit: true } : {}),
      };
    } finally {
      this.dispose();
    }
  }

  /** Frees the WebAssembly side; idempotent. Called by end(), and by callers on error. */
  dispose(): void {
    this.pass?.free();
    this.decision.clear();
    this.splitter.clear();
    if (this.state === 'scanning') this.state = 'disposed';
  }

  /** One source block: held for a possible re-scan, written, and re-scanned while the charset switches. */
  private async process(block: Block): Promise<void> {
    const pass = this.pass ?? this.begin(block.bytes);
    this.decision.hold(block);
    this.observe(pass, await pass.write(block.bytes));
    while (this.scanning) {
      const next = this.decision.takeSwitch();
      if (next === null) break;
      await this.rescan(next);
    }
  }

  /** Ends the current pass and scans the held blocks again under the new choice. */
  private async rescan({ choice, replay }: CharsetSwitch): Promise<void> {
    this.pass?.free();
    const pass = new ScanPass(choice, this.onImageUrl);
    this.pass = pass;
    for (const bytes of replay) {
      this.observe(pass, await pass.write(bytes));
      if (!this.scanning || this.decision.switching) break;
    }
  }

  private begin(first: Uint8Array): ScanPass {
    const pass = new ScanPass(this.decision.begin(first), this.onImageUrl);
    this.pass = pass;
    return pass;
  }

  /** Tells the charset decision what a write into `pass` showed, and stops at `<body>`. */
  private observe(pass: ScanPass, outcome: PassOutcome): void {
    if (outcome === 'markup-limit') {
      this.state = 'cut';
      pass.free();
      return;
    }
    if (outcome === 'not-utf8') this.decision.disproveUtf8(pass.declaredCharset);
    else this.decision.pageDeclared(pass.declaredCharset);
    // A charset switch found in the same block wins: the re-scan finds `<body>` again.
    if (outcome === 'body' && !this.decision.switching) {
      this.state = 'stopped';
      pass.free();
    }
  }
}
