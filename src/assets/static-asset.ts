// A file served many times unchanged (component.js, openapi.yaml, the /docs files, the icon): its
// ETag and its gzip and brotli forms are made once and each request only picks one. The forms
// come from the build (precompressed.ts) or, when it has none for these bytes, are made before
// the first answer for a small file and in the background for a large one, which is answered
// uncompressed until they are ready. A client holding the current copy gets 304 (RFC 9110
// 13.1.2 If-None-Match).

import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { compressOnce, pick, preferredCoding, type CodedBodies } from '../content-coding.js';
import { PRECOMPRESSED_DIR, readPrecompressed } from './precompressed.js';

export interface AssetHeaders {
  type: string;
  cacheControl: string;
}

/**
 * Up to this size a file without forms from the build is compressed before its first answer
 * (openapi.yaml, component.js): brotli 11 takes tens of milliseconds for these. Larger ones
 * (Swagger UI's files) would keep that answer waiting for seconds (bench/results/static-files.md).
 */
export const COMPRESS_BEFORE_SERVING_MAX_BYTES = 64 * 1024;

export interface LoadOptions {
  /** Where the build's forms are (dist/static/). */
  precompressedDir?: string;
  /** Makes the forms when the build has none (tests hold it back to see the answers before). */
  compress?: (bytes: Buffer) => Promise<CodedBodies>;
}

export class StaticAsset {
  /** Strong validator: a digest of the bytes, so every instance of one deploy agrees on it. */
  readonly etag: string;
  private coded: CodedBodies | null = null;
  /** Settles when the compressed forms are there (at once when they were given). */
  readonly compressed: Promise<void>;

  /**
   * The asset of `bytes`, with its forms from the build when they are there; else made now (small
   * files) or in the background (large ones). Never rejects: forms that cannot be made are not used.
   */
  static async load(bytes: Buffer, headers: AssetHeaders, options: LoadOptions = {}): Promise<StaticAsset> {
    const { precompressedDir = PRECOMPRESSED_DIR, compress = compressOnce } = options;
    const built = await readPrecompressed(bytes, precompressedDir);
    if (built) return new StaticAsset(bytes, headers, built);
    const making = compress(bytes);
    return new StaticAsset(bytes, headers, bytes.length <= COMPRESS_BEFORE_SERVING_MAX_BYTES ? await making.catch(() => null) : making);
  }

  /** `coded`: the forms, or the promise of them (answered uncompressed until it settles), or null for none. */
  constructor(
    readonly bytes: Buffer,
    private readonly headers: AssetHeaders,
    coded: CodedBodies | Promise<CodedBodies> | null,
  ) {
    this.etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
    this.compressed = Promise.resolve(coded).then(
      (made) => void (this.coded = made),
      // Answered uncompressed then (koa-compress is told not to compress it per request).
      () => {},
    );
    if (!(coded instanceof Promise)) this.coded = coded;
  }

  send(ctx: Context): void {
    ctx.set('Cache-Control', this.headers.cacheControl);
    ctx.set('ETag', this.etag);
    ctx.vary('Accept-Encoding');
    if (matches(ctx.get('If-None-Match'), this.etag)) {
      ctx.status = 304;
      return;
    }
    const { body, coding } = pick(this.coded ?? { identity: this.bytes }, preferredCoding(ctx.get('Accept-Encoding')));
    ctx.type = this.headers.type;
    ctx.body = body;
    // The identity form was chosen on purpose (or the others are not made yet): koa-compress must
    // not compress it per request after all.
    if (coding === 'identity') (ctx as Context & { compress?: boolean }).compress = false;
    else ctx.set('Content-Encoding', coding);
  }
}

/** If-None-Match: "*" or a list of entity tags, compared weakly (RFC 9110 13.1.2). */
function matches(header: string, etag: string): boolean {
  if (header === '') return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
