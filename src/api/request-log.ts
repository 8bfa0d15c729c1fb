// One log line per request with a request id, and the id echoed to the caller so a support
// question can be matched to the line. A streamed answer (a proxied image) is logged when it has
// ended, not when its headers left: one cut after its headers (size cap, upstream failure, client
// gone) is logged and counted with status "cut", never as the 200 its headers said.

import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import { routeOf } from './route.js';

/** Query strings can be as long as MAX_URL_LENGTH and more; the log keeps a bounded prefix. */
const LOGGED_URL_MAX = 512;

/** The status sent, or "cut": the headers left but the body did not arrive whole. */
export type LoggedStatus = number | 'cut';

export type RequestObserver = (route: string, status: LoggedStatus, seconds: number) => void;

interface RequestRecord {
  reqId: string;
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  /** The matched route's label (api/router.ts): a documented path, or "other" (bounded label values). */
  route: string;
  status: LoggedStatus;
  /** performance.now() when the request arrived. */
  started: number;
  ip?: string;
  reason?: string;
}

/** Writes the line and counts the request. */
export type RequestLogger = (record: RequestRecord) => void;

export const newRequestId: () => string = randomUUID;

export function requestLogger(logger: Logger, observe: RequestObserver = () => {}): RequestLogger {
  return function logRequest({ reqId, method, url, route, status, started, ip, reason }) {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const line = { reqId, method, url: loggedTarget(url).slice(0, LOGGED_URL_MAX), status, ms, ip, reason };
    observe(route, status, ms / 1000);
    if (status === 'cut' || status >= 500) logger.warn(line, 'request');
    else logger.info(line, 'request');
  };
}

/**
 * A request target as the log keeps it: without a fragment of its own, and without the fragment
 * of any URL in its query. A fragment never reaches the page's server (RFC 3986 3.5), so LinkPeek
 * never needs it, and pages put secrets there (`#access_token=…` of OAuth's implicit grant).
 */
export function loggedTarget(target: string): string {
  const own = target.indexOf('#');
  const withoutOwn = own === -1 ? target : target.slice(0, own);
  const q = withoutOwn.indexOf('?');
  // A # inside a query parameter's value arrives percent-encoded.
  if (q === -1 || !/%23/i.test(withoutOwn)) return withoutOwn;
  const params = new URLSearchParams(withoutOwn.slice(q + 1));
  for (const [name, value] of [...params]) {
    const hash = value.indexOf('#');
    if (hash !== -1) params.set(name, value.slice(0, hash));
  }
  return `${withoutOwn.slice(0, q)}?${params.toString()}`;
}

export function requestLog(logRequest: RequestLogger) {
  return async function requestLog(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const reqId = newRequestId();
    ctx.state.reqId = reqId;
    ctx.res.setHeader('X-Request-Id', reqId);
    const log = (status: LoggedStatus, reason?: string) =>
      logRequest({
        reqId,
        method: ctx.method,
        url: ctx.originalUrl,
        route: routeOf(ctx).label,
        status,
        started,
        ip: ctx.state.clientIp as string | undefined,
        reason: reason ?? (ctx.state.errorReason as string | undefined),
      });
    try {
      await next();
    } catch (err) {
      log(ctx.status);
      throw err;
    }
    const body = ctx.body as { pipe?: unknown; once?: (event: string, fn: (err: unknown) => void) => void } | null;
    if (ctx.method === 'HEAD' || typeof body?.pipe !== 'function' || typeof body.once !== 'function') return log(ctx.status);
    // Koa pipes the stream after this middleware returns: the outcome is known when the response closes.
    let failure: string | undefined;
    body.once('error', (err) => (failure = describeError(err)));
    const res = ctx.res;
    if (res.closed) return log(res.writableFinished ? ctx.status : 'cut', 'client gone');
    res.once('close', () => log(res.writableFinished ? ctx.status : 'cut', res.writableFinished ? undefined : (failure ?? 'client gone')));
  };
}
