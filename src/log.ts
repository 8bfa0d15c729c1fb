import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Log lines are gathered to 4 KiB and written together, synchronously; a quiet instance's lines
 * go out within a second (periodicFlush), and whatever is pending when the process exits is
 * written then. A write call per request line would cost about a ninth of a cached hit's CPU
 * (bench/cached.ts). A SIGKILL loses at most 4 KiB of lines.
 */
const FLUSH_AT_BYTES = 4096;
const FLUSH_EVERY_MS = 1000;

let stdout: (DestinationStream & { flushSync(): void }) | undefined;

/** One buffered stdout for every logger of the process, flushed on exit. */
function bufferedStdout(): DestinationStream {
  if (stdout === undefined) {
    const stream = pino.destination({ dest: 1, sync: true, minLength: FLUSH_AT_BYTES, periodicFlush: FLUSH_EVERY_MS });
    process.once('exit', () => stream.flushSync());
    stdout = stream;
  }
  return stdout;
}

/** The service's logger: JSON lines on stdout, one per request plus warnings. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'linkpeek' } }, bufferedStdout());
}
