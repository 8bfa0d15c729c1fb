// One page read into both preferences of its Metadata: the charset choice and head scan
// (wasm-parser) and the rules table (metadata/extract.ts). The CPU-bound part of an uncached
// answer, with no I/O and no clock: the same bytes give the same result on any thread, machine or
// load. It runs in a scan worker (scan-worker.ts) or, for a caller without a pool, inline.
// Everything in and out is plain data, so it crosses threads by structured clone, the bytes by
// transfer.

import type { Metadata } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { scanHead } from '../../wasm-parser/index.js';
import { extractBoth } from '../metadata/extract.js';
import { mediaTypeCharset } from '../media-type.js';

export interface PageScanTask {
  /** The page's bytes as fetched and decoded (Content-Encoding), at most MAX_PAGE_BYTES. */
  bytes: Uint8Array;
  /** The response's Content-Type: its charset is one of the charset sources. */
  contentType: string;
  /** The final URL after redirects (hrefs: URL objects do not cross threads). */
  pageUrl: string;
  /** The URL asked for, the last fallback of `url`. */
  requestedUrl: string;
  contentLanguage: string | null;
}

export interface PageScan {
  /** The head's tags, without the JSON-LD scripts (the rules have read them). */
  tags: RawTags;
  og: Metadata;
  twitter: Metadata;
  /** Bytes the scan read before it stopped; 0 for an empty page. */
  bytesConsumed: number;
  /** The scan stopped at the first `<body>`: bytes after `bytesConsumed` were not needed. */
  stoppedAtBody: boolean;
  /** The head held more markup than a scan reads (wasm-parser MAX_TAGS and kin). */
  markupLimit: boolean;
}

export async function scanPage(task: PageScanTask): Promise<PageScan> {
  // The task's bytes are the scan's alone and never change: the scanner keeps views into them
  // for a charset re-scan instead of copies.
  const scan = await scanHead(task.bytes, { httpCharset: mediaTypeCharset(task.contentType), retainChunks: true });
  const both = extractBoth(scan.tags, new URL(task.pageUrl), {
    requestedUrl: new URL(task.requestedUrl),
    contentLanguage: task.contentLanguage,
  });
  // The JSON-LD scripts are read by the rules alone (into `both`): the rest of the request (walls,
  // safety, images) reads the other tags, and the scripts would only cross threads for nothing.
  const { jsonLd: _read, ...tags } = scan.tags;
  return {
    tags,
    ...both,
    bytesConsumed: scan.bytesConsumed,
    stoppedAtBody: scan.stoppedAtBody,
    markupLimit: scan.markupLimit === true,
  };
}

/** A task as a scan thread receives it. */
export interface TaskMessage {
  id: number;
  task: PageScanTask;
}

/** What a scan thread says once it listens for tasks. */
export const READY = 'ready';

/**
 * A thread's answer: the scan and how long it took on the thread (ms), or its error's message.
 * The thread's own time, not the pool's: the pool reads the answer only when its event loop comes
 * to it, which past capacity is hundreds of ms later, and a client charged for that wait would
 * weigh as if its ordinary pages were heavy.
 */
export type ResultMessage = { id: number; ok: true; scan: PageScan; ms: number } | { id: number; ok: false; message: string };

/** Runs one task as a scan thread does: never rejects, a failure is its message. */
export async function answerTask({ id, task }: TaskMessage): Promise<ResultMessage> {
  const started = performance.now();
  try {
    const scan = await scanPage(task);
    return { id, ok: true, scan, ms: performance.now() - started };
  } catch (err) {
    return { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
