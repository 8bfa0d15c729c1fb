// A metadata answer as stored and sent: encoded once, kept in the answer store for as long as its
// extraction lives, and sent with the same headers whether it was just made (the miss that stored
// it) or found stored (every hit after). A hit is answered by a step of the metadata operation's
// chain, after its rate limit (api/router.ts): it is logged, given CORS headers and counted like
// any request, and never reaches validation or the metadata service.

import type { Context, Next } from 'koa';
import type { Metadata } from '../../generated/types.gen.js';
import type { ResponseStore } from '../cache/response-store.js';
import { codedBody, lazyBodies, preferredCoding, type Coding } from '../content-coding.js';
import { WARNING_HEADER } from './near-miss.js';
import { setHeaders } from './set-headers.js';
import { HIT_SERVER_TIMING } from './server-timing.js';

/** docs/SPEC.md, the metadata endpoint: a successful response may be cached for 12 hours. */
const CACHE_CONTROL = 'public, max-age=43200';

const HEADERS: Record<Coding, Readonly<Record<string, string>>> = {
  identity: headersFor('identity'),
  gzip: headersFor('gzip'),
  br: headersFor('br'),
};

/** A hit's headers beyond an answer's: built once per coding, never per request. */
const HIT_HEADERS: Record<Coding, Readonly<Record<string, string>>> = {
  identity: { ...HEADERS.identity, 'Server-Timing': HIT_SERVER_TIMING },
  gzip: { ...HEADERS.gzip, 'Server-Timing': HIT_SERVER_TIMING },
  br: { ...HEADERS.br, 'Server-Timing': HIT_SERVER_TIMING },
};

function headersFor(coding: Coding): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': CACHE_CONTROL,
    Vary: 'Accept-Encoding',
    ...(coding === 'identity' ? {} : { 'Content-Encoding': coding }),
  };
}

/**
 * Answers a request whose exact request target is stored, in the coding the client accepts;
 * anything else goes on. Stored answers are kept by exact request target (sendAnswer), so a
 * request reaches one only through the metadata operation's GET or HEAD, whose chain this is.
 */
export function cachedAnswers(responses: ResponseStore, onHit: () => void = () => {}) {
  return function cachedAnswers(ctx: Context, next: Next): Promise<void> | void {
    const bodies = responses.get(ctx.originalUrl);
    if (bodies === undefined) return next();
    const { body, coding } = codedBody(bodies, preferredCoding(ctx.get('Accept-Encoding')));
    setHeaders(ctx.res, HIT_HEADERS[coding]);
    ctx.body = body; // HEAD: Koa sends the headers and drops the body
    onHit();
  };
}

/**
 * Answers `ctx` with `metadata` and stores the bytes under the exact request target until
 * `expiresAt`. Koa would have stringified the same way (JSON.stringify, no spacing), so a hit and
 * the miss before it answer identical bytes. Each compressed form is made once, for the first
 * client that asks for it, and kept.
 */
export function sendAnswer(ctx: Context, responses: ResponseStore, metadata: Metadata, expiresAt: number): void {
  const bodies = lazyBodies(Buffer.from(JSON.stringify(metadata)));
  // A request naming a near miss carries a warning a stored answer would not: it is not stored.
  if (!ctx.res.hasHeader(WARNING_HEADER)) responses.set(ctx.originalUrl, bodies, expiresAt);
  const { body, coding } = codedBody(bodies, preferredCoding(ctx.get('Accept-Encoding')));
  ctx.compress = false;
  ctx.body = body;
  setHeaders(ctx.res, HEADERS[coding]);
}
