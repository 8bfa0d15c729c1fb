// Which compressed form of a body a client gets (RFC 9110 12.5.3), and the forms themselves.
// Stored answers and static files are compressed once per coding and the result kept
// (cache/response-store.ts, assets/static-asset.ts): a repeated request only picks a kept form.

import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { memoized } from './memo.js';

export type Coding = 'br' | 'gzip' | 'identity';

/** Bodies below this are sent as they are: compression would save less than its headers cost. */
export const COMPRESS_MIN_BYTES = 1024;

/** The coding to answer with: brotli or gzip when accepted (q > 0), the higher q first, br on a tie. */
export function preferredCoding(acceptEncoding: string | undefined): Coding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity';
  return negotiated(acceptEncoding);
}

/** Distinct Accept-Encoding values seen are few (one per browser family): 64 answers are kept. */
const negotiated = memoized((header) => negotiate(header), 64);

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
  /** null below COMPRESS_MIN_BYTES; undefined until a client first asks for it (lazyBodies). */
  gzip?: Buffer | null;
  br?: Buffer | null;
}

/**
 * A metadata answer's forms, each made when a client first asks for it (most ask for one coding
 * only, and a client that asks for none costs nothing): about 0.1 ms for brotli and 0.3 ms for
 * gzip of a 2 KB answer here, once per stored answer.
 */
export function lazyBodies(body: Buffer): CodedBodies {
  return body.length < COMPRESS_MIN_BYTES ? { identity: body, gzip: null, br: null } : { identity: body };
}

/** The form of `bodies` for `coding`, made now and kept if it is not there yet. */
export function codedBody(bodies: CodedBodies, coding: Coding): { body: Buffer; coding: Coding } {
  if (coding !== 'identity' && bodies[coding] === undefined) {
    bodies[coding] =
      coding === 'br'
        ? zlib.brotliCompressSync(bodies.identity, { params: { ...brotliParams(bodies.identity.length, 5), [zlib.constants.BROTLI_PARAM_LGWIN]: 18 } })
        : zlib.gzipSync(bodies.identity);
  }
  return pick(bodies, coding);
}

const gzipAsync = promisify(zlib.gzip);
const brotliAsync = promisify(zlib.brotliCompress);

/**
 * At the best levels, off the event loop (zlib's thread pool), for static files served many times
 * (assets/precompressed.ts makes the largest at build time: brotli 11 is slow).
 */
export async function compressOnce(body: Buffer): Promise<CodedBodies> {
  if (body.length < COMPRESS_MIN_BYTES) return { identity: body, gzip: null, br: null };
  const [gzip, br] = await Promise.all([
    gzipAsync(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
    brotliAsync(body, { params: brotliParams(body.length, zlib.constants.BROTLI_MAX_QUALITY) }),
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
