// Cached hits answered before Koa (at least 70% of a bare Koa hello-world's req/s).
// A repeated GET/HEAD of the metadata path (routes.ts) whose exact request target is in the
// response cache is the hottest request this service gets, and Koa's per-request context and the
// middleware chain cost as much as everything a hit needs. So the server's request listener
// answers it here, doing what the middleware chain does for a hit and nothing else:
//   request id and log line (api/request-log.ts), CORS and nosniff headers (api/cors.ts), the
//   client's rate limit, counted once (api/rate-limit.ts), the cache-hit counter and Server-Timing
//   (api/server-timing.ts), and the stored bytes in the coding the client accepts, with their
//   headers (api/cached-answer.ts).
// Every header that does not depend on the request is gathered once, below, not per hit.
// Anything else goes to Koa untouched: a miss, another path or method, a request carrying our Via
// (a fetch loop, refused there). A hit the rate limit refuses goes to Koa with the decision as an
// argument (api/hand-over.ts), so that the 429 comes from the one error path and is not counted twice.

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { carriesOurVia } from '../fetch/policy.js';
import type { RateDecision, RateLimitStore } from '../store/rate-limit.js';
import type { ResponseStore } from '../cache/response-store.js';
import { PATHS } from '../routes.js';
import { cachedAnswerHeaders } from './cached-answer.js';
import { requestClient } from './client-ip.js';
import { codedBody, preferredCoding, type CodedBodies, type Coding } from './content-coding.js';
import { CORS_HEADERS, NOSNIFF } from './cors.js';
import type { HandOver } from './hand-over.js';
import { rateLimitHeaders } from './rate-limit.js';
import { newRequestId, type RequestLogger } from './request-log.js';
import { HIT_SERVER_TIMING } from './server-timing.js';

export interface FastPathDeps {
  responses: ResponseStore;
  /** null when rate limiting is off (RATE_LIMIT_MAX=0). */
  limiter: RateLimitStore | null;
  trustProxy: boolean;
  logRequest: RequestLogger;
  /** Counts the hit (the cache counter of /metrics). */
  onHit: () => void;
}

const CACHED_PREFIX = `${PATHS.metadata}?`;

/** The headers of a hit that depend only on the coding of the body sent. */
const HIT_HEADERS: Record<Coding, Readonly<Record<string, string>>> = {
  identity: hitHeaders('identity'),
  gzip: hitHeaders('gzip'),
  br: hitHeaders('br'),
};

function hitHeaders(coding: Coding): Record<string, string> {
  return { ...CORS_HEADERS, ...NOSNIFF, ...cachedAnswerHeaders(coding), 'Server-Timing': HIT_SERVER_TIMING };
}

/** The server's request listener: cached hits answered here, everything else handed to `koa`. */
export function withFastPath({ responses, limiter, trustProxy, logRequest, onHit }: FastPathDeps, koa: HandOver): RequestListener {
  function answer(req: IncomingMessage, res: ServerResponse, bodies: CodedBodies, started: number, ip: string, decision: RateDecision | null): void {
    const reqId = newRequestId();
    const { body, coding } = codedBody(bodies, preferredCoding(req.headers['accept-encoding']));
    res.writeHead(200, {
      'X-Request-Id': reqId,
      ...HIT_HEADERS[coding],
      ...(decision !== null ? rateLimitHeaders(decision) : {}),
      'Content-Length': body.length,
    });
    res.end(body); // HEAD: Node sends the headers and drops the body
    onHit();
    logRequest({ reqId, method: req.method!, url: req.url!, path: PATHS.metadata, status: 200, started, ip });
  }

  return function serve(req, res) {
    const method = req.method;
    const target = req.url;
    if ((method !== 'GET' && method !== 'HEAD') || target === undefined || !target.startsWith(CACHED_PREFIX)) return koa(req, res);
    const body = responses.get(target);
    const via = req.headers.via;
    if (body === undefined || (via !== undefined && carriesOurVia(via))) return koa(req, res);

    const started = performance.now();
    const { ip, key } = requestClient(req, trustProxy);
    if (limiter === null) return answer(req, res, body, started, ip, null);
    limiter.hit(key).then(
      (decision) => (decision.allowed ? answer(req, res, body, started, ip, decision) : koa(req, res, { counted: decision })),
      // The shared store falls back to memory rather than reject; should it reject, Koa counts and answers.
      () => koa(req, res),
    );
  };
}
