// A metadata answer as stored and sent: encoded once, kept in the response store for as long as
// its extraction lives, and sent with the same headers whether Koa answers it (the miss that
// stored it) or the fast path does (every hit after).

import type { Context } from 'koa';
import type { Metadata } from '../../generated/types.gen.js';
import type { ResponseStore } from '../cache/response-store.js';
import { codedBody, lazyBodies, preferredCoding, type Coding } from './content-coding.js';
import { WARNING_HEADER } from './near-miss.js';

/** docs/SPEC.md, the metadata endpoint: a successful response may be cached for 12 hours. */
const CACHE_CONTROL = 'public, max-age=43200';

const HEADERS: Record<Coding, Readonly<Record<string, string>>> = {
  identity: headersFor('identity'),
  gzip: headersFor('gzip'),
  br: headersFor('br'),
};

function headersFor(coding: Coding): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': CACHE_CONTROL,
    Vary: 'Accept-Encoding',
    ...(coding === 'identity' ? {} : { 'Content-Encoding': coding }),
  };
}

/** The headers of a stored answer sent in `coding`: built once per coding, never per request. */
export function cachedAnswerHeaders(coding: Coding): Readonly<Record<string, string>> {
  return HEADERS[coding];
}

/**
 * Answers `ctx` with `metadata` and stores the bytes under the exact request target until
 * `expiresAt`. Koa would have stringified the same way (JSON.stringify, no spacing), so a hit and
 * the miss before it answer identical bytes. Each compressed form is made once, for the first
 * client that asks for it, and kept; Koa's compress middleware leaves an encoded body alone.
 */
export function sendAnswer(ctx: Context, responses: ResponseStore, metadata: Metadata, expiresAt: number): void {
  const bodies = lazyBodies(Buffer.from(JSON.stringify(metadata)));
  // The fast path sends stored answers without it: a request naming a near miss is not stored.
  if (!ctx.res.hasHeader(WARNING_HEADER)) responses.set(ctx.originalUrl, bodies, expiresAt);
  const { body, coding } = codedBody(bodies, preferredCoding(ctx.get('Accept-Encoding')));
  ctx.body = body;
  ctx.set(cachedAnswerHeaders(coding));
}
