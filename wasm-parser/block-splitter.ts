// Cuts the byte stream into blocks at fixed stream offsets: each block's size depends only on where
// it starts, so where `<body>` stops the scan, and so `bytesConsumed`, do not depend on how the
// caller cut its chunks. States: filling (bytes of an incomplete block wait in `pending`) and
// aligned (the next chunk starts a block).

/**
 * 2 KiB: small next to real heads (a median head is ~20 KB; bench:extract reports it), so
 * a short head stops within 2 KiB of its `<body>`.
 */
export const DEFAULT_BLOCK_SIZE = 2048;

/**
 * A long head (inline scripts and styles: a tenth of real pages read past 500 KB before `<body>`)
 * is written in larger blocks: an eighth of what was read so far, up to 64 KiB. Every write into
 * lol-html has a fixed cost (the asyncify wrapper, a copy into wasm memory, output callbacks), so
 * on a 990 KB head 64 KiB blocks take under half the time of 2 KiB blocks. Growing by an eighth
 * keeps the overshoot past `<body>` within an eighth of the bytes before it.
 */
export const MAX_BLOCK_SIZE = 64 * 1024;

/**
 * One block of the stream. `lifetime` says whether its bytes may be kept after the write() call
 * that produced it:
 * - 'lasting': the splitter's own buffer, or a chunk the caller promised never to change;
 * - 'call': a view into the caller's chunk, which the caller may reuse once write() returns.
 */
export interface Block {
  bytes: Uint8Array;
  lifetime: 'lasting' | 'call';
}

export interface BlockSplitterOptions {
  blockSize?: number;
  maxBlockSize?: number;
  /** The caller never changes a chunk after writing it: views into chunks are 'lasting'. */
  retainChunks?: boolean;
}

export class BlockSplitter {
  private readonly blockSize: number;
  private readonly maxBlockSize: number;
  private readonly viewLifetime: Block['lifetime'];
  /** The start of the next, incomplete block (state filling); null when aligned. */
  private pending: Uint8Array | null = null;
  private pendingLength = 0;
  private handedOut = 0;

  constructor(options: BlockSplitterOptions = {}) {
    this.blockSize = Math.max(16, Math.floor(options.blockSize ?? DEFAULT_BLOCK_SIZE));
    this.maxBlockSize = Math.max(this.blockSize, Math.floor(options.maxBlockSize ?? MAX_BLOCK_SIZE));
    this.viewLifetime = options.retainChunks === true ? 'lasting' : 'call';
  }

  /** Bytes handed out in blocks so far: the stream offset of the next block. */
  get consumed(): number {
    return this.handedOut;
  }

  /**
   * The blocks `chunk` completes, in stream order; its remainder waits for the next chunk. A
   * consumer that stops iterating early drops the rest of `chunk` (the scan has stopped).
   */
  *blocks(chunk: Uint8Array): Generator<Block, void, undefined> {
    let at = 0;
    if (this.pending !== null) {
      const take = Math.min(this.pending.length - this.pendingLength, chunk.length);
      this.pending.set(chunk.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      at = take;
      if (this.pendingLength < this.pending.length) return;
      const bytes = this.pending;
      this.pending = null;
      this.pendingLength = 0;
      yield this.handOut(bytes, 'lasting');
    }
    // Whole blocks straight from the caller's chunk, without a copy.
    for (let size = this.sizeAt(this.handedOut); chunk.length - at >= size; size = this.sizeAt(this.handedOut)) {
      const bytes = chunk.subarray(at, at + size);
      at += size;
      yield this.handOut(bytes, this.viewLifetime);
    }
    if (at < chunk.length) {
      this.pending = new Uint8Array(this.sizeAt(this.handedOut));
      this.pending.set(chunk.subarray(at));
      this.pendingLength = chunk.length - at;
    }
  }

  /** The incomplete last block at the end of the input, or null when the input ended aligned. */
  finish(): Block | null {
    if (this.pending === null) return null;
    const bytes = this.pending.subarray(0, this.pendingLength);
    this.pending = null;
    this.pendingLength = 0;
    return this.handOut(bytes, 'lasting');
  }

  /** Drops the bytes waiting for a block (the scan is over). */
  clear(): void {
    this.pending = null;
    this.pendingLength = 0;
  }

  /** The size of the block that starts at `offset` (MAX_BLOCK_SIZE): a function of the offset alone. */
  private sizeAt(offset: number): number {
    const grown = Math.floor(offset / 8 / this.blockSize) * this.blockSize;
    return Math.min(this.maxBlockSize, Math.max(this.blockSize, grown));
  }

  private handOut(bytes: Uint8Array, lifetime: Block['lifetime']): Block {
    this.handedOut += bytes.length;
    return { bytes, lifetime };
  }
}
