// A URL without its fragment: the part of a URL that never reaches the server (RFC 3986 3.5), so
// it names nothing the server answers for. Cache keys, redirect loops, logged targets, the `url`
// fallback and the URL sent to an oEmbed provider read URLs this way.

/**
 * `url`'s href without its fragment. In an http(s) href a `#` can only start the fragment (the
 * WHATWG parser percent-encodes it everywhere else), so the href is cut there, not parsed again.
 */
export function hrefWithoutFragment(url: URL): string {
  const href = url.href;
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const hash = href.indexOf('#');
    return hash === -1 ? href : href.slice(0, hash);
  }
  const copy = new URL(href);
  copy.hash = '';
  return copy.href;
}
