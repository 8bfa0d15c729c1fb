import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

/** The service's logger: JSON lines on stdout, one per request plus warnings (DESIGN.md "logs"). */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'linkpeek' } });
}
