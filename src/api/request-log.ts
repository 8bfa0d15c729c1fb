// One log line per request with a request id (issue 2), and the id echoed to the caller so a
// support question can be matched to the line.

import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

/** Query strings can be as long as MAX_URL_LENGTH and more; the log keeps a bounded prefix. */
const LOGGED_URL_MAX = 512;

/** Paths with a route label of their own; everything else is "other" (bounded label values). */
const ROUTES: ReadonlySet<string> = new Set(['/v1/metadata', '/v1/cors-proxy', '/component.js', '/', '/openapi.yaml', '/healthz', '/metrics']);

export type RequestObserver = (route: string, status: number, seconds: number) => void;

export function requestLog(logger: Logger, observe: RequestObserver = () => {}) {
  return async function requestLog(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const reqId = randomUUID();
    ctx.state.reqId = reqId;
    ctx.set('X-Request-Id', reqId);
    try {
      await next();
    } finally {
      const line = {
        reqId,
        method: ctx.method,
        url: ctx.originalUrl.slice(0, LOGGED_URL_MAX),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ip: ctx.state.clientIp as string | undefined,
        reason: ctx.state.errorReason as string | undefined,
      };
      observe(ROUTES.has(ctx.path) ? ctx.path : 'other', ctx.status, line.ms / 1000);
      if (ctx.status >= 500) logger.warn(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
