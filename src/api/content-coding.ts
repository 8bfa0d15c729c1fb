// Which compressed form of a body a client gets (RFC 9110 12.5.3), and the forms themselves.
// Stored answers and static files are compressed once and kept (api/response-cache.ts,
// assets/static-asset.ts), so a request only picks one of the stored forms: the hot path never
// compresses.

import { promisify } from 'node:util';
import zlib from 'node:zlib';

export type Coding = 'br' | 'gzip' | 'identity';

/** Bodies below this are sent as they are: compression would save less than its headers cost. */
export const COMPRESS_MIN_BYTES = 1024;

/** Distinct Accept-Encoding values seen are few (one per browser family); their answer is kept. */
const MEMO_MAX = 64;
const memo = new Map<string, Coding>();

/** The coding to answer with: brotli or gzip when accepted (q > 0), the higher q first, br on a tie. */
export function preferredCoding(acceptEncoding: string | undefined): Coding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity';
  const known = memo.get(acceptEncoding);
  if (known !== undefined) return known;
  const coding = negotiate(acceptEncoding);
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(acceptEncoding, coding);
  return coding;
}

function negotiate(header: string): Coding {
  let br = 0;
  let gzip = 0;
  let any = -1;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gzip = q;
    else if (name === '*') any = q;
  }
  // "*" stands for every coding not named.
  if (any >= 0 && !/\bbr\b/i.test(header)) br = any;
  if (any >= 0 && !/\bgzip\b/i.test(header)) gzip = any;
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : 'identity';
}

export interface CodedBodies {
  identity: Buffer;
  /** null below COMPRESS_MIN_BYTES. */
  gzip: Buffer | null;
  br: Buffer | null;
}

/** Compressed at once, for small dynamic bodies (a metadata answer: a few KB, well under a millisecond). */
export function compressNow(body: Buffer): CodedBodies {
  if (body.length < COMPRESS_MIN_BYTES) return { identity: body, gzip: null, br: null };
  return {
    identity: body,
    gzip: zlib.gzipSync(body),
    br: zlib.brotliCompressSync(body, { params: brotliParams(body.length, 5) }),
  };
}

const gzipAsync = promisify(zlib.gzip);
const brotliAsync = promisify(zlib.brotliCompress);

/** Compressed off the event loop (zlib's thread pool), for static files served many times. */
export async function compressOnce(body: Buffer): Promise<CodedBodies> {
  if (body.length < COMPRESS_MIN_BYTES) return { identity: body, gzip: null, br: null };
  const [gzip, br] = await Promise.all([
    gzipAsync(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
    brotliAsync(body, { params: brotliParams(body.length, 9) }),
  ]);
  return { identity: body, gzip, br };
}

function brotliParams(size: number, quality: number): Record<number, number> {
  return {
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
  };
}

/** The stored form for `coding`, falling back to identity where none was made. */
export function pick(bodies: CodedBodies, coding: Coding): { body: Buffer; coding: Coding } {
  const coded = coding === 'identity' ? null : bodies[coding];
  return coded ? { body: coded, coding } : { body: bodies.identity, coding: 'identity' };
}
