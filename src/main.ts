// The entry point: the only reader of process.env (STYLE.md 8). Builds the dependencies from
// Config, listens, and shuts down cleanly.

import http from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './log.js';

let config: Config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}

const logger = createLogger(config);
if (config.allowPrivateNetworks) {
  logger.warn('ALLOW_PRIVATE_NETWORKS=true: upstream fetches may reach loopback and private networks (development only)');
}

const app = await createApp(config, { logger });
const server = http.createServer(app.callback());
server.listen(config.port, config.host, () => {
  const address = server.address();
  const where = typeof address === 'object' && address ? `${address.address}:${address.port}` : String(address);
  logger.info({ address: where, redis: config.redisUrl !== null }, 'LinkPeek listening');
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), config.shutdownGraceMs);
  force.unref();
  server.close(() => {
    void app.close().then(() => process.exit(0));
  });
  server.closeIdleConnections();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
