// Every response may be read cross-origin: the element runs on other origins
// and calls the metadata endpoint from there. Nothing is credentialed, so `*` gives nothing away.

import type { Context, Next } from 'koa';
import { setHeaders } from './set-headers.js';

/** What every response carries. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  // Headers a browser script may read beside the CORS-safelisted ones.
  'Access-Control-Expose-Headers': 'LinkPeek-Warning, Retry-After, Server-Timing, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id',
};

/**
 * Sent on every answer beside the CORS headers: no body of ours (JSON above all) is ever to be
 * sniffed into another type by a browser.
 */
export const NOSNIFF: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };

/** Both, set at once on every request. */
const EVERY_ANSWER: Readonly<Record<string, string>> = { ...CORS_HEADERS, ...NOSNIFF };

export function cors(ctx: Context, next: Next): Promise<void> {
  setHeaders(ctx.res, EVERY_ANSWER);
  if (ctx.method === 'OPTIONS') {
    // A preflight: every endpoint is a simple GET, so it is allowed at once and cached a day.
    ctx.set('Access-Control-Allow-Methods', 'GET, HEAD');
    ctx.set('Access-Control-Allow-Headers', '*');
    ctx.set('Access-Control-Max-Age', '86400');
    ctx.status = 204;
    return Promise.resolve();
  }
  return next();
}
