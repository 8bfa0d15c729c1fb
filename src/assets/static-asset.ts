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
  private coded: CodedBodies | null = null;
  private compressing: Promise<void> | null = null;

  constructor(
    readonly bytes: Buffer,
    private readonly headers: AssetHeaders,
  ) {
    this.etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  }

  /**
   * The gzip and brotli forms once made, else null: the first request starts making them (off the
   * event loop; 2.3 s for Swagger UI's 1.7 MB bundle here) and is not kept waiting for them.
   */
  bodies(): CodedBodies | null {
    this.compressing ??= compressOnce(this.bytes).then(
      (coded) => void (this.coded = coded),
      () => void (this.compressing = null), // tried again by the next request
    );
    return this.coded;
  }

  send(ctx: Context): void {
    ctx.set('Cache-Control', this.headers.cacheControl);
    ctx.set('ETag', this.etag);
    ctx.vary('Accept-Encoding');
    if (matches(ctx.get('If-None-Match'), this.etag)) {
      ctx.status = 304;
      return;
    }
    const coded = this.bodies();
    const { body, coding } = coded ? pick(coded, preferredCoding(ctx.get('Accept-Encoding'))) : { body: this.bytes, coding: 'identity' as const };
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
