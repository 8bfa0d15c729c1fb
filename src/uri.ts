// A URL as the WHATWG URL Standard writes it out (what `new URL(...).href` gives, and what is
// fetched) is not always an RFC 3986 URI: it keeps `|`, `[`, `]`, `{`, `}`, `^`, `\` and a `%`
// without two hex digits in paths and queries, which browsers accept and strict URI parsers
// refuse. docs/SPEC.md promises URIs in answers, so URLs leave the service with those characters
// percent-encoded (RFC 3986 2.1), which names the same resource to every server.

/** RFC 3986 3.3 pchar (unreserved, sub-delims, ":", "@") and "/", plus "%" of a pct-encoded triplet. */
const PATH_CHARS = "A-Za-z0-9\\-._~!$&'()*+,;=:@/";
/** RFC 3986 3.4 and 3.5: a query or fragment also takes "?". */
const NOT_IN_PATH = new RegExp(`%(?![0-9A-Fa-f]{2})|[^${PATH_CHARS}%]`, 'g');
const NOT_IN_QUERY = new RegExp(`%(?![0-9A-Fa-f]{2})|[^${PATH_CHARS}?%]`, 'g');

/** One ASCII character as its pct-encoded triplet (WHATWG has already encoded everything else). */
const encode = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** `url` (http or https) as an RFC 3986 URI: the scheme, userinfo and host as WHATWG wrote them, the rest encoded where it must be. */
export function asUri(url: URL): string {
  const { href, pathname, search, hash } = url;
  const prefix = href.slice(0, href.length - pathname.length - search.length - hash.length);
  const query = search === '' ? '' : `?${search.slice(1).replace(NOT_IN_QUERY, encode)}`;
  const fragment = hash === '' ? '' : `#${hash.slice(1).replace(NOT_IN_QUERY, encode)}`;
  return prefix + pathname.replace(NOT_IN_PATH, encode) + query + fragment;
}
