// The HTTP server around the app: timeouts that keep slow clients from holding
// sockets, and a graceful stop that lets requests in flight finish.

import http from 'node:http';
import type { Logger } from 'pino';
import type { App } from './app.js';
import { answerClientError } from './client-error.js';
import type { Config } from './config.js';

/**
 * Slow-client limits (Config), tighter than Node's defaults (headersTimeout 60 s, requestTimeout
 * 300 s). Every request here is a GET without a body, so 10 s for the headers is generous; a
 * client that dribbles them byte by byte (slowloris) is cut then. keepAliveTimeout stays Node's
 * 5 s: an idle keep-alive connection is closed after 5 s — keep a load balancer's idle timeout
 * below it, or raise KEEP_ALIVE_TIMEOUT_MS above the load balancer's.
 */
export function createServer(app: App, config: Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): http.Server {
  const server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: Math.max(config.requestTimeoutMs, config.headersTimeoutMs),
      keepAliveTimeout: config.keepAliveTimeoutMs,
    },
    app.callback(),
  );
  // A request Node cannot parse gets the API's JSON error shape and CORS, not a bare status.
  server.on('clientError', answerClientError);
  // Node checks the timeouts above on this interval (default 30 s): check more often.
  (server as http.Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;
  return server;
}

/**
 * Stops accepting connections, lets requests in flight finish within `graceMs`, then closes the
 * app's stores. /healthz answers 503 "stopping" meanwhile (a load balancer stops routing here).
 * Resolves true when everything finished in time.
 */
export async function stopGracefully(server: http.Server, app: App, graceMs: number, logger: Logger): Promise<boolean> {
  app.health.stopping = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their responses end: close each as soon as it does.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    }),
  ]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (!inTime) {
    logger.warn({ graceMs }, 'shutdown grace over: closing the connections still open');
    server.closeAllConnections();
  }
  // Past the grace, the requests those fetches were for have been cut: nothing waits for them.
  await app.close({ cut: !inTime });
  return inTime;
}
