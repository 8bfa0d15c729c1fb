// The head scanner's entry point: page bytes in, the raw tags of the
// head out, reading no further than the first `<body>` start tag.

import { HeadScanner } from './scanner.js';
import type { ScanResult } from './types.js';

export { HeadScanner, type HeadScannerOptions } from './scanner.js';
export { COLLECT_LIMITS, MAX_HANDLED_TAGS, MAX_OPEN_TAG_BYTES, MAX_TAGS, READ_LIMITS } from './collect-limits.js';
export { DEFAULT_BLOCK_SIZE, MAX_BLOCK_SIZE } from './block-splitter.js';
export { wasmMemoryBytes } from './memory.js';
export type { RawLink, RawMeta, RawTags, ScanResult } from './types.js';

export interface ScanHeadOptions {
  /** The charset parameter of the response's Content-Type (the caller reads the header): one of the charset sources. */
  httpCharset?: string | null;
  /** The source never changes a chunk it has yielded: held bytes need no copy (HeadScannerOptions). */
  retainChunks?: boolean;
  /** Told the raw URL of each image and icon tag as soon as it is scanned (HeadScannerOptions). */
  onImageUrl?: (rawUrl: string) => void;
}

/**
 * Scans `source` until `<body>`, its end or the markup bound (ScanResult.markupLimit). Stops pulling from an iterable as soon as `<body>` is
 * seen and calls its `return()` so the producer is released (the caller then closes the upstream).
 * The WebAssembly rewriter is freed on every path.
 */
export async function scanHead(source: AsyncIterable<Uint8Array> | Uint8Array, options: ScanHeadOptions = {}): Promise<ScanResult> {
  const scanner = new HeadScanner({
    httpCharset: options.httpCharset ?? null,
    retainChunks: options.retainChunks ?? false,
    onImageUrl: options.onImageUrl,
  });
  try {
    if (source instanceof Uint8Array) {
      await scanner.write(source);
    } else {
      // `break` (and a throw) out of for-await calls the iterator's return().
      for await (const chunk of source) {
        if (await scanner.write(chunk)) break;
      }
    }
    return await scanner.end();
  } finally {
    scanner.dispose();
  }
}
