import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { BufferedLines } from './log-destination.js';

/**
 * Log lines are gathered to 4 KiB and written together, synchronously; a quiet instance's lines
 * go out within a second, and whatever is pending when the process exits is written then. A
 * write call per request line would cost about a ninth of a cached hit's CPU (bench/cached.ts).
 * A SIGKILL loses at most 4 KiB of lines. A stdout nobody reads any more is given up on
 * (log-destination.ts), and a slow reader waited for at most a second per write, so logging
 * never keeps the process from exiting.
 */
const FLUSH_AT_BYTES = 4096;
const FLUSH_EVERY_MS = 1000;
export const STDOUT_RETRY_MS = 1000;

let stdout: BufferedLines | undefined;

/** One buffered stdout for every logger of the process, flushed on exit. */
export function bufferedStdout(): BufferedLines {
  if (stdout === undefined) {
    const stream = new BufferedLines(1, { minLength: FLUSH_AT_BYTES, flushEveryMs: FLUSH_EVERY_MS, retryForMs: STDOUT_RETRY_MS });
    process.once('exit', () => stream.flushSync());
    stdout = stream;
  }
  return stdout;
}

/** The service's logger: JSON lines on stdout, one per request plus warnings. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'linkpeek' } }, bufferedStdout());
}
