// The container's HEALTHCHECK (Dockerfile): asks /healthz of the service in this container, at
// the address and port its settings make it listen on, and exits 0 for a 200 (ok or degraded,
// README "Health and metrics"), 1 otherwise. An entry point like main.ts, so it reads HOST and
// PORT as the service does; a wildcard HOST (0.0.0.0, ::) is asked on its loopback address.
// node, not curl, which the slim image lacks.

import { pathToFileURL } from 'node:url';
import { loadConfig } from './config.js';

const WILDCARD_TO_LOOPBACK: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '::1' };

/** The /healthz URL of a service listening on `host`:`port`. */
export function healthzUrl(host: string, port: number): string {
  const address = WILDCARD_TO_LOOPBACK[host] ?? host;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}/healthz`;
}

// Run as the HEALTHCHECK's command (not when a test imports healthzUrl).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const config = loadConfig(process.env);
  fetch(healthzUrl(config.host, config.port), { signal: AbortSignal.timeout(4_000) }).then(
    (res) => process.exit(res.status === 200 ? 0 : 1),
    () => process.exit(1),
  );
}
