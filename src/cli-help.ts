// What `linkpeek --help` says, and the words of the CLI's own refusals: the usage, the settings a
// newcomer reaches for first, the exit codes and where the rest is written.

import { nearMiss } from './api/near-miss.js';

export const README_URL = 'https://github.com/linkpeek/linkpeek#readme';

export const USAGE = 'usage: linkpeek <url> [--prefer og|twitter]\n       linkpeek serve';

/** The options the command declares (besides the url and `serve`). */
export const OPTIONS = ['prefer', 'help', 'version'] as const;

export const HELP = `${USAGE}
       linkpeek --help | --version

Prints the link preview of a page (the object GET /v1/metadata answers) as JSON on stdout;
\`linkpeek serve\` runs the HTTP service instead.

Options:
  --prefer og|twitter   which tags win when a page has both (default og)
  -h, --help            this text
  -v, --version         the version

Settings come from the environment, as the service's do. The ones to know first:
  ALLOW_PRIVATE_NETWORKS=true   preview pages on loopback or your own network (refused by default)
  DNS_SERVERS=127.0.0.1:5300    nameservers to ask instead of the system's (IP addresses, with a port)
  FETCH_TIMEOUT_MS=8000         total deadline of one fetch
  PROBE_IMAGES=false            do not fetch the image and icon to measure them
  LOG_LEVEL=debug               log lines on stderr (silent unless set)
Every setting, and how to try LinkPeek without the internet: ${README_URL}

Exit codes:
  0  the preview is on stdout
  1  the page could not be previewed (the reason is on stderr, as the API's 422 says it)
  2  bad input, usage or setting (what the API answers 400)`;

/**
 * The one line for an option parseArgs refused: Node's own text names no alternative, so a
 * near miss of a declared option is named (`--perfer`: did you mean --prefer?).
 */
export function unknownOptionMessage(err: Error & { code?: string }): string {
  const option = /'(-{1,2}[^']*)'/.exec(err.message)?.[1];
  if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || option === undefined) return err.message;
  const meant = nearMiss(option.replace(/^-+/, '').replace(/=.*$/, ''), OPTIONS);
  return `unknown option ${option}${meant ? `; did you mean --${meant}?` : ''}`;
}
