// The entry point: the only reader of process.env. Builds the dependencies from
// Config, listens, and stops gracefully on SIGTERM and SIGINT.

import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { tuneGarbageCollection } from './gc.js';
import { listenError } from './listen-error.js';
import { bufferedStdout, createLogger, STDOUT_RETRY_MS } from './log.js';
import { createMetricsServer } from './metrics-server.js';
import { createServer, stopGracefully } from './server.js';

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

tuneGarbageCollection(config.gcHeapGrowthPercent);
const logger = createLogger(config);
if (config.allowPrivateNetworks) {
  logger.warn('ALLOW_PRIVATE_NETWORKS=true: upstream fetches may reach loopback and private networks (development only)');
}

/** A listener that cannot start ends the process with one line naming the setting, like loadConfig's. */
function exitOnListenError(portSetting: 'PORT' | 'METRICS_PORT', port: number) {
  return (err: Error) => {
    const named = listenError(err, { portSetting, port, host: config.host });
    if (!named) throw err;
    logger.flush();
    console.error(named.message);
    process.exit(2);
  };
}

const app = await createApp(config, { logger });
const server = createServer(app, config);
server.once('error', exitOnListenError('PORT', config.port));
server.listen({ port: config.port, host: config.host, backlog: config.listenBacklog }, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ host: config.host, port, redis: config.redisUrl !== null }, 'LinkPeek listening');
  logger.flush(); // lines are buffered (src/log.ts): whoever waits for this one sees it now
});

// METRICS_PORT: /metrics on a listener of its own (README "Metrics"), not on the public port.
const metricsPort = config.metricsPort;
let metricsServer: ReturnType<typeof createMetricsServer> | null = null;
if (metricsPort !== null) {
  metricsServer = createMetricsServer(app.metrics);
  metricsServer.once('error', exitOnListenError('METRICS_PORT', metricsPort));
  metricsServer.listen(metricsPort, config.host, () => logger.info({ host: config.host, port: metricsPort }, 'metrics listening'));
}

/**
 * The exit-time flush of the logs may take this long past the grace (log.ts gives a slow stdout
 * a second per write); a stdout nobody reads is given up on at once.
 */
const EXIT_FLUSH_MS = STDOUT_RETRY_MS + 500;

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    // A second signal: the operator wants it gone now. One attempt at the pending log lines.
    logger.warn({ signal }, 'second signal: exiting now');
    bufferedStdout().flushSync(0);
    process.exit(1);
  }
  stopping = true;
  // Whatever a request, a store or stdout does, the process ends by then.
  setTimeout(() => {
    bufferedStdout().flushSync(0);
    process.exit(1);
  }, config.shutdownGraceMs + EXIT_FLUSH_MS).unref();
  logger.info({ signal, drainMs: config.shutdownDrainMs, graceMs: config.shutdownGraceMs }, 'shutting down');
  logger.flush();
  metricsServer?.close();
  metricsServer?.closeAllConnections();
  const inTime = await stopGracefully(server, app, { drainMs: config.shutdownDrainMs, graceMs: config.shutdownGraceMs }, logger);
  logger.info({ inTime }, 'stopped');
  process.exit(inTime ? 0 : 1);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
