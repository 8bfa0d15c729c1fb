// METRICS_PORT: /metrics on a listener of its own, so the public port never shows them. An
// operator keeps that port off the internet (not published, firewalled, or only on the network
// Prometheus scrapes from); without METRICS_PORT, /metrics stays on the public port (README).

import http from 'node:http';
import type { Metrics } from './metrics.js';

export function createMetricsServer(metrics: Metrics): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        res.end(text);
      },
      () => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('The metrics could not be collected.\n');
      },
    );
  });
}
