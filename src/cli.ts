#!/usr/bin/env node
// The `linkpeek` command (package.json "bin"), an entry point like main.ts: settings come from the
// environment, as the service's do (README "Settings").
//   linkpeek <url> [--prefer og|twitter]   the page's Metadata as JSON on stdout
//   linkpeek serve                          the HTTP service (what `npm start` runs)
//   linkpeek --help | --version             (cli-help.ts: settings, exit codes, the README)
// A failure is one line on stderr, the API's message and reason, and a non-zero exit: 2 for what
// the API answers 400 (and bad usage or settings), 1 for the rest.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { HELP, unknownOptionMessage, USAGE } from './cli-help.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { linkPeekOver } from './engine/linkpeek.js';
import { PreviewError } from './engine/preview-error.js';
import { FetchFailed } from './errors.js';
import type { Prefer } from './metadata/service-types.js';
import { PACKAGE_ROOT } from './package-root.js';

/** Said after a page refused because its name led to a private address: the setting that allows it. */
const PRIVATE_ADDRESS_HINT = 'Its address is private, loopback or reserved: set ALLOW_PRIVATE_NETWORKS=true to preview pages of your own network.';

function fail(message: string, code: number): never {
  process.stderr.write(`linkpeek: ${message}\n`);
  process.exit(code);
}

function parse(): { positionals: string[]; prefer: string | undefined } {
  try {
    const { positionals, values } = parseArgs({
      allowPositionals: true,
      options: { prefer: { type: 'string' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      process.exit(0);
    }
    if (values.version) {
      const { version } = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
      process.stdout.write(`${version}\n`);
      process.exit(0);
    }
    return { positionals, prefer: values.prefer };
  } catch (err) {
    return fail(`${unknownOptionMessage(err as Error)}\n${USAGE}`, 2);
  }
}

/**
 * Whether the page was refused because its name led to a private address: the engine's failure
 * (also when it comes from the cache, which keeps its detail but not its cause) carries the
 * detail "blocked address: name → address" for logs (src/fetch/classify-error.ts).
 */
function refusedAsPrivate(err: PreviewError): boolean {
  return err.cause instanceof FetchFailed && err.cause.reason.startsWith('blocked address: ');
}

const { positionals, prefer } = parse();
if (positionals[0] === 'serve' && positionals.length === 1) {
  await import('./main.js');
} else {
  if (positionals.length !== 1) fail(USAGE, 2);
  let config: Config;
  try {
    // One page, then exit: scanned on this thread unless SCAN_WORKERS says otherwise.
    config = loadConfig({ SCAN_WORKERS: '0', ...process.env });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  // stdout carries the answer alone: log lines, only when LOG_LEVEL asks for them, go to stderr.
  const logger = pino({ level: process.env.LOG_LEVEL ? config.logLevel : 'silent' }, pino.destination(2));
  const linkpeek = linkPeekOver(config, { logger });
  try {
    const metadata = await linkpeek.metadata(positionals[0]!, { prefer: prefer as Prefer | undefined });
    process.stdout.write(`${JSON.stringify(metadata, null, 2)}\n`);
  } catch (err) {
    if (!(err instanceof PreviewError)) throw err;
    process.exitCode = err.reason === 'invalid_input' ? 2 : 1;
    // A bad argument is named by the message itself, as the API's 400 names it in `path`.
    const hint = refusedAsPrivate(err) ? ` ${PRIVATE_ADDRESS_HINT}` : '';
    process.stderr.write(`linkpeek: ${err.message}${hint} (${err.reason})\n`);
  } finally {
    await linkpeek.close();
  }
}
