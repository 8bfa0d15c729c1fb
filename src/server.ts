// The HTTP server around the app: timeouts that keep slow clients from holding
// sockets, and a graceful stop that lets requests in flight finish.

import http from 'node:http';
import type { Logger } from 'pino';
import type { App } from './app.js';
import { answerClientError } from './client-error.js';
import type { Config } from './config.js';
import { capConnectionsPerClient } from './connection-cap.js';
import { ProxyTrust } from './trusted-proxies.js';

/**
 * Slow-client limits (Config), tighter than Node's defaults (headersTimeout 60 s, requestTimeout
 * 300 s). Every request here is a GET without a body, so 10 s for the headers is generous; a
 * client that dribbles them byte by byte (slowloris) is cut then. keepAliveTimeout stays Node's
 * 5 s: an idle keep-alive connection is closed after 5 s — keep a load balancer's idle timeout
 * below it, or raise KEEP_ALIVE_TIMEOUT_MS above the load balancer's.
 */
export function createServer(
  app: App,
  config: Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnectionsPerClient' | 'trustProxy'>,
): http.Server {
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
  // Once the listener has closed (a shutdown, past its drain), every answer says so: the client
  // opens its next connection elsewhere instead of sending it on one about to be closed.
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!server.listening) res.setHeader('Connection', 'close');
  });
  capConnectionsPerClient(server, config.maxConnectionsPerClient, new ProxyTrust(config.trustProxy));
  // Node checks the timeouts above on this interval (default 30 s): check more often.
  (server as http.Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;
  return server;
}

/** A shutdown's two bounds, both counted from the signal (Config). */
export interface StopBounds {
  /** The listener stays open this long, with /healthz answering 503 `stopping`. */
  drainMs: number;
  /** Requests in flight, those accepted while draining included, have until then to finish. */
  graceMs: number;
}

/**
 * Drains, then stops: /healthz answers 503 "stopping" at once while the listener keeps accepting
 * for `drainMs`, so a load balancer sees it and stops routing here before any connection is
 * refused; then the listener closes, and requests in flight (proxied images streaming included)
 * finish until `graceMs` after the signal; then the app's stores close. Resolves true when
 * everything finished in time.
 */
export async function stopGracefully(server: http.Server, app: App, bounds: StopBounds, logger: Logger): Promise<boolean> {
  const signalledAt = performance.now();
  app.health.stopping = true;
  await new Promise((resolve) => setTimeout(resolve, bounds.drainMs));
  logger.info({ drainMs: bounds.drainMs }, 'drained: closing the listener');
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their responses end: close each as soon as it does.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, bounds.graceMs - (performance.now() - signalledAt)));
    }),
  ]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (!inTime) {
    logger.warn({ graceMs: bounds.graceMs }, 'shutdown grace over: closing the connections still open');
    server.closeAllConnections();
  }
  // Past the grace, the requests those fetches were for have been cut: nothing waits for them.
  await app.close({ cut: !inTime });
  return inTime;
}
