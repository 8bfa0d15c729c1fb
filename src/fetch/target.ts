// What a URL alone decides: checked when the caller's `url` is parsed
// (a 400 before any socket opens) and again at every redirect hop. What needs DNS or
// a connection is the lookup guard's job (address.ts).

import { InvalidInput } from '../errors.js';
import { ipLiteral } from '../ip-literal.js';
import { isPublicAddress } from './address.js';
import { ALLOWED_SCHEMES, BLOCKED_PORTS, LOCALHOST_NAMES, LOCALHOST_SUFFIX, MAX_URL_LENGTH } from './policy.js';

export interface TargetOptions {
  /** Local development and tests: private, loopback and localhost targets are allowed. */
  allowPrivateNetworks: boolean;
  /** Test seam: the address predicate (defaults to address.ts isPublicAddress). */
  isPublic?: (ip: string) => boolean;
}

const URL_PATH = ['query', 'url'];

/** What a self-hoster needs to know when a local page is refused (README "Settings"). */
const SELF_HOSTING_HINT = '; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true';

// C0 controls and DEL. WHATWG URL silently drops CR, LF and tab ("a.com\r\n/x" parses as
// "a.com/x"), so they are refused on the raw string: a URL that needed them is a header-injection
// attempt, not a page.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * Parses the caller's `url` into an absolute http(s) URL that may be fetched, or throws
 * InvalidInput with path ['query', 'url'] and one message saying what is wrong.
 */
export function parseTarget(raw: string, opts: TargetOptions): URL {
  // In the words of openapi.yaml's maxLength as the API's validation says it first, so the library says the same.
  if (raw.length > MAX_URL_LENGTH) invalid(`must NOT have more than ${MAX_URL_LENGTH} characters`);
  if (CONTROL_CHARS.test(raw)) invalid('must not contain control characters (CR, LF, tab, NUL...)');
  const url = URL.parse(raw);
  if (!url) invalid('must be an absolute http or https URL');
  const problem = targetProblem(url, opts);
  if (problem) invalid(problem + schemeHint(raw, url));
  return url;
}

/**
 * "site.test:33947/" parses as the scheme "site.test:": when the scheme is a host followed by a
 * port, the message says what was probably meant.
 */
function schemeHint(raw: string, url: URL): string {
  if (ALLOWED_SCHEMES.includes(url.protocol) || !/^[a-z0-9.-]+:\d{1,5}(?:[/?#]|$)/i.test(raw)) return '';
  return `; did you mean http://${raw.slice(0, 100)}?`;
}

/**
 * Why this parsed URL may not be fetched, or null. Shared by parseTarget (→ 400) and every redirect
 * hop (→ FetchFailed, the same answer as any other fetch failure).
 */
export function targetProblem(url: URL, opts: TargetOptions): string | null {
  if (!ALLOWED_SCHEMES.includes(url.protocol)) {
    return `must be an absolute http or https URL, not ${url.protocol.slice(0, 20)}`;
  }
  // Credentials are never sent upstream, and "http://trusted.example@127.0.0.1/" is the classic
  // disguise of the real host (RFC 3986 7.6).
  if (url.username !== '' || url.password !== '') return 'must not contain credentials (user:password@)';
  // What is fetched is the URL as WHATWG writes it out (spaces, quotes, <, > percent-encoded), so
  // that is what is bounded too, and the message says how long it came out.
  if (url.href.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters once percent-encoded (it is ${url.href.length})`;
  if (url.port !== '' && BLOCKED_PORTS.has(Number(url.port))) return `port ${url.port} is not allowed`;
  if (opts.allowPrivateNetworks) return null;

  // WHATWG URL has already normalised every IPv4 spelling (127.1, 0177.0.0.1, 0x7f.1, 2130706433,
  // 0, fullwidth digits) to a dotted quad, and IPv6 to its compressed form. undici skips the DNS
  // lookup for literals, so this is the only place they are checked.
  const literal = ipLiteral(url.hostname);
  if (literal !== null) {
    const isPublic = opts.isPublic ?? isPublicAddress;
    return isPublic(literal) ? null : `must not point to a private, loopback or reserved address${SELF_HOSTING_HINT}`;
  }
  const name = url.hostname.replace(/\.+$/, ''); // "localhost." is localhost
  if (LOCALHOST_NAMES.includes(name) || name.endsWith(LOCALHOST_SUFFIX)) return `must not point to localhost${SELF_HOSTING_HINT}`;
  return null;
}

function invalid(message: string): never {
  throw new InvalidInput([{ path: URL_PATH, message }]);
}
