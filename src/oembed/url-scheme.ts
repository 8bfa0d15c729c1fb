// oEmbed URL schemes (oembed.com section 2.1): URLs in which `*` stands for any run of
// characters. A scheme is compiled once into two globs, one for the host and one for the path
// and query, so a `*` in the host can never reach into the path: "https://*.youtube.com/watch*"
// matches www.youtube.com, never "https://evil.example/.youtube.com/watch". Readings:
//   - http and https are one: the registry lists many providers under the scheme they had years
//     ago, and the scheme says nothing about which site a URL names;
//   - a leading "*." in the host also matches the bare domain ("*.youtube.com" matches
//     youtube.com), the way a person reads "any subdomain of";
//   - the host is compared lower-case, with its port (a URL on another port is another site);
//     the path and query as they are;
//   - a URL's fragment is never matched (it never reaches a server).
// Matching a glob of k literal pieces against n characters costs O(n·k) (one indexOf per piece,
// leftmost first, which is exact when `*` is the only operator): no regular expression, so no
// backtracking however many stars a scheme holds and however long the URL.

/** A pattern split at its stars: "a*b*c" → ["a", "b", "c"]; no star → one piece, matched whole. */
type Glob = readonly string[];

export interface UrlScheme {
  /** The host glob; a leading "*." pattern also carries the bare domain as `bareHost`. */
  host: Glob;
  bareHost: string | null;
  /** The path-and-query glob, starting with "/". */
  rest: Glob;
}

const SCHEME = /^https?:\/\/([^/?#]+)([^#]*)$/i;

/** Compiles one scheme of the registry; null for one LinkPeek cannot match (not http(s), no host, a fragment). */
export function compileScheme(scheme: string): UrlScheme | null {
  const parts = SCHEME.exec(scheme.trim());
  if (parts === null) return null;
  const host = parts[1]!.toLowerCase();
  const rest = parts[2]!;
  const bare = host.startsWith('*.') ? host.slice(2) : null;
  return {
    host: host.split('*'),
    bareHost: bare !== null && !bare.includes('*') ? bare : null,
    rest: (rest.startsWith('/') ? rest : `/${rest}`).split('*'),
  };
}

/** The parts of a URL a scheme is matched against: lower-case host with port, path and query. */
export function matchable(url: URL): { host: string; rest: string } {
  return { host: url.host, rest: `${url.pathname}${url.search}` };
}

export function schemeMatches(scheme: UrlScheme, host: string, rest: string): boolean {
  return (host === scheme.bareHost || globMatches(scheme.host, host)) && globMatches(scheme.rest, rest);
}

/**
 * Whether `text` matches the glob: it starts with the first piece, ends with the last, and holds
 * the pieces between in order without overlap. Leftmost placement of each middle piece leaves the
 * most room for the rest, so one pass decides.
 */
export function globMatches(glob: Glob, text: string): boolean {
  const first = glob[0]!;
  if (glob.length === 1) return text === first;
  const last = glob[glob.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < glob.length - 1; i++) {
    const piece = glob[i]!;
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
