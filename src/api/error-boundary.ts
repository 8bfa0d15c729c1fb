// The one place errors become HTTP. Everything below it throws typed errors from
// src/errors.ts; this picks the body shape of the endpoint (docs/SPEC.md "Errors") and never lets a
// stack reach the client. The body's shape is the matched route's (api/router.ts), set before any
// step that may throw.

import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { LinkPeekError, describeError, toHttpError } from '../errors.js';
import { routeOf } from './route.js';

export function errorBoundary(logger: Logger) {
  return async function errorBoundary(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent || !ctx.writable) {
        // A streamed body failed after its headers left (proxy cut at the byte cap): the only
        // honest signal left is to abort the connection, never a truncated answer that looks whole.
        ctx.req.socket.destroy();
        logger.warn({ reqId: ctx.state.reqId, err: describeError(err) }, 'response aborted after headers');
        return;
      }
      const http = toHttpError(err, routeOf(ctx).surface);
      if (http.status >= 500 && !(err instanceof LinkPeekError)) {
        logger.error({ reqId: ctx.state.reqId, err }, 'unexpected error');
      } else {
        ctx.state.errorReason = describeError(err);
      }
      ctx.status = http.status;
      ctx.set(http.headers);
      ctx.body = http.body;
    }
  };
}
