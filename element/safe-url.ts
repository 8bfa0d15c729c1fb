// Only http(s) URLs may reach href and src, since the data is untrusted: javascript:, data:,
// blob:, file: and relative or malformed values are dropped, never rewritten.

/** The absolute http(s) form of `value`, or null for anything else. */
export function httpUrl(value: unknown): string | null {
  if (typeof value != 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol == 'http:' || url.protocol == 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** A URL as a reader says it: host (with its port) and path ("example.com/docs"), no scheme or query. */
export function linkText(url: string): string {
  const { host, pathname } = new URL(url);
  return (host + pathname).replace(/^www\.|\/$/g, '');
}
