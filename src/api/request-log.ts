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

export interface RequestRecord {
  reqId: string;
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  /** The path alone, for the route label. */
  path: string;
  status: number;
  /** performance.now() when the request arrived. */
  started: number;
  ip?: string;
  reason?: string;
}

/** Writes the line and counts the request; shared by the Koa middleware and the fast path. */
export type RequestLogger = (record: RequestRecord) => void;

export const newRequestId: () => string = randomUUID;

export function requestLogger(logger: Logger, observe: RequestObserver = () => {}): RequestLogger {
  return function logRequest({ reqId, method, url, path, status, started, ip, reason }) {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const line = { reqId, method, url: url.slice(0, LOGGED_URL_MAX), status, ms, ip, reason };
    observe(ROUTES.has(path) ? path : 'other', status, ms / 1000);
    if (status >= 500) logger.warn(line, 'request');
    else logger.info(line, 'request');
  };
}

export function requestLog(logRequest: RequestLogger) {
  return async function requestLog(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const reqId = newRequestId();
    ctx.state.reqId = reqId;
    ctx.set('X-Request-Id', reqId);
    try {
      await next();
    } finally {
      logRequest({
        reqId,
        method: ctx.method,
        url: ctx.originalUrl,
        path: ctx.path,
        status: ctx.status,
        started,
        ip: ctx.state.clientIp as string | undefined,
        reason: ctx.state.errorReason as string | undefined,
      });
    }
  };
}
