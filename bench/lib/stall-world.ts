// The pieces of bench/stalls.ts: upstreams on chosen loopback addresses (quick pages, pages that
// drip one byte every half second and never end), a timed GET from a chosen source address, and
// a poll of /healthz.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  origin: string;
  close(): Promise<void>;
}

/** Quick HTML pages at any path (`<title>` names the path); 404 for /favicon.ico. */
export function quickPages(host: string): Promise<LocalServer> {
  return listen(host, (req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><title>${req.url}</title></head><body>ok</body></html>`);
  });
}

/** Pages that send their headers and `<head>`, then one byte every 500 ms, and never end. */
export function drippingPages(host: string): Promise<LocalServer> {
  return listen(host, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><html><head>');
    const timer = setInterval(() => res.write(' '), 500);
    res.on('close', () => clearInterval(timer));
  });
}

function listen(host: string, handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://${host}:${port}`,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((done) => server.close(() => done()));
        },
      });
    }),
  );
}

export interface Timed {
  /** HTTP status, or 0 when no answer came within the client's own timeout. */
  status: number;
  ms: number;
  body: string;
  /** The answer's Server-Timing header (where a LinkPeek answer spent its time), when it had one. */
  serverTiming?: string;
  /** The answer's X-Request-Id (LinkPeek's log line of it), when it had one. */
  requestId?: string;
}

/**
 * One GET from `localAddress` on a connection of its own, given up `timeoutMs` after it was sent
 * (status 0): a deadline on the whole exchange, connect included (a server too busy to accept
 * leaves the connect pending through SYN retries for minutes, and a socket's idle timeout starts
 * only once it is connected).
 */
export function timedGet(url: string, localAddress: string, timeoutMs = 30_000, headers: Record<string, string> = {}): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number, body: string, res?: http.IncomingMessage) => {
      clearTimeout(deadline);
      const serverTiming = [res?.headers['server-timing'] ?? []].flat().join(', ');
      const requestId = res?.headers['x-request-id'];
      resolve({
        status,
        ms: performance.now() - started,
        body,
        ...(serverTiming === '' ? {} : { serverTiming }),
        ...(typeof requestId === 'string' ? { requestId } : {}),
      });
    };
    const deadline = setTimeout(() => {
      req.destroy();
      done(0, '');
    }, timeoutMs);
    const req = http.get(url, { localAddress, agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done(res.statusCode ?? 0, body, res));
      res.on('error', () => done(0, body));
    });
    req.on('error', () => done(0, ''));
  });
}

export interface HealthReport {
  status: string;
  redis: string;
  event_loop_delay_ms: { p99: number; max: number };
  upstream_fetches: Record<string, number | boolean>;
}

/** Polls /healthz every 100 ms until `wanted(report)` or `withinMs`; ms until then, or null. */
export async function healthTurns(origin: string, wanted: (report: HealthReport) => boolean, withinMs: number): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    const report = await health(origin);
    if (report && wanted(report)) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** The parsed /healthz report, or null when none came within 5 s. */
export async function health(origin: string): Promise<HealthReport | null> {
  const res = await timedGet(`${origin}/healthz`, '127.0.0.1', 5000);
  return res.status > 0 ? (JSON.parse(res.body) as HealthReport) : null;
}

/** The parts of a report that say why it reads as it does. */
export function describeHealth(report: HealthReport | null): string {
  if (report === null) return 'no answer within 5 s';
  const { status, redis, event_loop_delay_ms: loop, upstream_fetches: slots } = report;
  return `${status} (redis ${redis}, event-loop delay p99 ${loop.p99} ms, fetch slots ${JSON.stringify(slots)})`;
}

export const metadataUrl = (origin: string, page: string) => `${origin}/v1/metadata?url=${encodeURIComponent(page)}`;
