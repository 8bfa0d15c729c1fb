// A file served many times unchanged (component.js, openapi.yaml, the /docs files): its ETag and
// its gzip and brotli forms are made once, off the event loop, and each request only picks one.
// A client holding the current copy gets 304 (RFC 9110 13.1.2 If-None-Match).

import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { compressOnce, pick, preferredCoding, type CodedBodies } from '../api/content-coding.js';

export interface AssetHeaders {
  type: string;
  cacheControl: string;
}

export class StaticAsset {
  /** Strong validator: a digest of the bytes, so every instance of one deploy agrees on it. */
  readonly etag: string;
  private coded: Promise<CodedBodies> | null = null;

  constructor(
    readonly bytes: Buffer,
    private readonly headers: AssetHeaders,
  ) {
    this.etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  }

  /** The gzip and brotli forms, made on first use and kept. */
  bodies(): Promise<CodedBodies> {
    this.coded ??= compressOnce(this.bytes);
    return this.coded;
  }

  async send(ctx: Context): Promise<void> {
    ctx.set('Cache-Control', this.headers.cacheControl);
    ctx.set('ETag', this.etag);
    ctx.vary('Accept-Encoding');
    if (matches(ctx.get('If-None-Match'), this.etag)) {
      ctx.status = 304;
      return;
    }
    const { body, coding } = pick(await this.bodies(), preferredCoding(ctx.get('Accept-Encoding')));
    ctx.type = this.headers.type;
    ctx.body = body;
    // The identity form was chosen on purpose: koa-compress must not compress it after all.
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
