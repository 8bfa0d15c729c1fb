// The network policy of every upstream fetch, as commented data (after go-camo's
// vars.go). Reading this one screen tells what LinkPeek will and will not connect to, what it
// sends, and what it refuses. The code that applies it lives beside it: address.ts (ranges),
// target.ts (URLs), fetcher.ts (headers, limits).

import type { Config } from '../config.js';

/** One blocked address range and why it is blocked. */
export interface BlockedRange {
  cidr: string;
  reason: string;
}

/**
 * Address ranges an upstream fetch never connects to. Checked on IP
 * literals before connecting and on every address DNS returns, where the socket connects.
 *
 * Two nets catch an address: ipaddr.js must classify it `unicast` (its table of special ranges),
 * and it must match none of the entries below. The table is ours and authoritative; it also
 * closes gaps in ipaddr.js's (it calls the IPv4-compatible `::7f00:1` "unicast"). IPv4-mapped
 * IPv6 (`::ffff:a.b.c.d`) is unwrapped by ipaddr.js `process()` first and judged as IPv4, so
 * `::ffff:127.0.0.1` is loopback. Entries are ordered specific-first: the first match names the
 * reason in logs.
 */
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  // IPv4 (IANA IPv4 Special-Purpose Address Registry, RFC 6890)
  { cidr: '0.0.0.0/8', reason: '"this network" (RFC 791); 0.0.0.0 reaches the local host on Linux' },
  { cidr: '10.0.0.0/8', reason: 'private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', reason: 'carrier-grade NAT shared space (RFC 6598)' },
  { cidr: '127.0.0.0/8', reason: 'loopback (RFC 1122)' },
  // A public-looking unicast address, so ipaddr.js passes it: Azure's WireServer, reachable from
  // every Azure VM, hands out the VM's configuration (agent goal state, extension settings) much
  // like the 169.254.169.254 metadata service does.
  { cidr: '168.63.129.16/32', reason: 'Azure host platform (WireServer): VM configuration, reachable from every Azure VM' },
  { cidr: '169.254.0.0/16', reason: 'link-local, incl. cloud metadata 169.254.169.254 (RFC 3927)' },
  { cidr: '172.16.0.0/12', reason: 'private network (RFC 1918)' },
  { cidr: '192.0.0.0/24', reason: 'IETF protocol assignments (RFC 6890)' },
  { cidr: '192.0.2.0/24', reason: 'documentation TEST-NET-1 (RFC 5737)' },
  { cidr: '192.31.196.0/24', reason: 'AS112 DNS sink (RFC 7535), not a web host' },
  { cidr: '192.52.193.0/24', reason: 'AMT relay anycast (RFC 7450), not a web host' },
  { cidr: '192.88.99.0/24', reason: 'deprecated 6to4 relay anycast (RFC 7526)' },
  { cidr: '192.168.0.0/16', reason: 'private network (RFC 1918)' },
  { cidr: '192.175.48.0/24', reason: 'AS112 DNS sink (RFC 7534), not a web host' },
  { cidr: '198.18.0.0/15', reason: 'benchmarking (RFC 2544)' },
  { cidr: '198.51.100.0/24', reason: 'documentation TEST-NET-2 (RFC 5737)' },
  { cidr: '203.0.113.0/24', reason: 'documentation TEST-NET-3 (RFC 5737)' },
  { cidr: '224.0.0.0/4', reason: 'multicast (RFC 5771)' },
  { cidr: '255.255.255.255/32', reason: 'limited broadcast (RFC 919)' },
  { cidr: '240.0.0.0/4', reason: 'reserved for future use (RFC 1112)' },

  // IPv6 (IANA IPv6 Special-Purpose Address Registry, RFC 6890); the specific ranges
  // first, then the broad rule that only 2000::/3 is globally routed unicast.
  { cidr: '::/128', reason: 'unspecified address (RFC 4291); connecting to it reaches the local host' },
  { cidr: '::1/128', reason: 'loopback (RFC 4291)' },
  { cidr: '::/96', reason: 'deprecated IPv4-compatible form (RFC 4291 2.5.5.1), e.g. ::7f00:1 = 127.0.0.1' },
  { cidr: '::ffff:0:0:0/96', reason: 'IPv4-translated form (RFC 6145) of any IPv4 address' },
  // NAT64 embeds an IPv4 address; a NAT64 gateway would forward to it, including 10/8 or 127/8.
  // The whole prefix is blocked rather than unwrapped: LinkPeek reaches IPv4 hosts directly, and a
  // deployment on an IPv6-only network with DNS64 must run its own NAT64-aware policy.
  { cidr: '64:ff9b::/96', reason: 'NAT64 well-known prefix (RFC 6052): carries any IPv4, even private' },
  { cidr: '64:ff9b:1::/48', reason: 'local-use NAT64 (RFC 8215): carries any IPv4, even private' },
  { cidr: '100::/64', reason: 'discard-only (RFC 6666)' },
  // 6to4 embeds an IPv4 router address (2002:7f00:1:: is 127.0.0.1); relays are deprecated
  // (RFC 7526), so no public web host depends on it: blocked whole, like NAT64.
  { cidr: '2002::/16', reason: '6to4 (RFC 3056): carries any IPv4, even private' },
  // Teredo (2001::/32) embeds the server's and an obfuscated client IPv4; it tunnels through
  // relays to arbitrary IPv4 hosts and is not used by web servers: blocked with the rest of
  // 2001::/23, the IETF protocol assignments (benchmarking, ORCHID, AMT, AS112...).
  { cidr: '2001::/32', reason: 'Teredo tunnelling (RFC 4380): carries any IPv4, even private' },
  { cidr: '2001::/23', reason: 'IETF protocol assignments (RFC 2928), not web hosts' },
  { cidr: '2001:db8::/32', reason: 'documentation (RFC 3849)' },
  { cidr: '3fff::/20', reason: 'documentation (RFC 9637)' },
  { cidr: 'fc00::/7', reason: 'unique local, the IPv6 private networks (RFC 4193)' },
  { cidr: 'fe80::/10', reason: 'link-local (RFC 4291)' },
  { cidr: 'fec0::/10', reason: 'deprecated site-local (RFC 3879)' },
  { cidr: 'ff00::/8', reason: 'multicast (RFC 4291)' },
  // Everything outside 2000::/3 is unassigned or special (IANA IPv6 Address Space registry).
  { cidr: '::/3', reason: 'outside global unicast 2000::/3 (IANA)' },
  { cidr: '4000::/2', reason: 'outside global unicast 2000::/3 (IANA)' },
  { cidr: '8000::/1', reason: 'outside global unicast 2000::/3 (IANA)' },
];

/** Host names that mean "this machine" whatever DNS says (RFC 6761 6.3), refused from the URL alone. */
export const LOCALHOST_NAMES: readonly string[] = ['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback'];
/** Any name under this suffix is loopback too (RFC 6761 6.3: "*.localhost"). */
export const LOCALHOST_SUFFIX = '.localhost';

/** Only web pages and images: docs/SPEC.md "absolute HTTP or HTTPS URL". */
export const ALLOWED_SCHEMES: readonly string[] = ['http:', 'https:'];

/**
 * Ports a fetch never connects to, from the Fetch Standard's "bad port" list (2.9 Port blocking):
 * a URL like http://mail.example:25/ would let a caller speak to SMTP, IRC, etc. through us.
 * 0 is not a connectable port at all.
 */
export const BLOCKED_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Longest `url` accepted: longer ones are abuse, not pages (browsers and CDNs cap near here too). */
export const MAX_URL_LENGTH = 4096;

/**
 * Our token in `Via` (RFC 9110 7.6.3: received-protocol SP received-by). Sent on every upstream
 * request; a request that arrives carrying it came from a LinkPeek instance, and answering it
 * would let a caller make the service fetch itself in a loop.
 */
const VIA_PSEUDONYM = 'linkpeek';
export const OUR_VIA = `1.1 ${VIA_PSEUDONYM}`;

/**
 * True when a `Via` header (one value, a comma-joined list, or Node's array form) has an entry
 * whose received-by is ours, wherever it sits in the chain (proxies between instances append).
 */
export function carriesOurVia(via: string | readonly string[] | undefined | null): boolean {
  if (via == null) return false;
  const values = typeof via === 'string' ? [via] : via;
  return values.some((value) =>
    value.split(',').some((entry) => {
      // "1.1 linkpeek", "HTTP/1.1 linkpeek (comment)": the second token is received-by.
      const receivedBy = entry.trim().split(/[ \t]+/)[1];
      return receivedBy?.toLowerCase() === VIA_PSEUDONYM;
    }),
  );
}

/**
 * Statuses followed as redirects, by hand (Fetch Standard "redirect status"; RFC 9110 15.4). Each
 * hop is re-checked like the first URL; at most config.maxRedirects (MAX_REDIRECTS, 5) are
 * followed; one of these without a Location is a failure. 300 and 304 are answers, not redirects.
 */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The default Accept of a page fetch (the image proxy passes its own): what browsers send for a
 * navigation. Bot-management services answer a client that does not ask for HTML with a bare
 * 403 or an empty 202 instead of their interstitial (AWS WAF serves its challenge page only to a
 * request accepting text/html), and some sites serve their real page only to it.
 */
const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/**
 * Accept-Language of every fetch, as a browser set to US English sends it. A request without a
 * usual one is a bot signal to those services, and English is what the messages and most bot-check
 * titles LinkPeek recognises (src/walls/markers.ts, which knows a few localised ones too) are
 * written in.
 */
const ACCEPT_LANGUAGE = 'en-US,en;q=0.9';

/**
 * Content codings we ask for and decode (RFC 9110 8.4). The byte cap counts decoded bytes, so a
 * compression bomb costs no more than the cap. zstd is not offered: undici 7's decoder needs a
 * newer Node than 20.
 */
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** Stacked codings ("gzip, gzip, ...") beyond this are refused: no page needs more. */
export const MAX_CONTENT_CODINGS = 2;

/**
 * The complete set of request headers LinkPeek sends. Nothing from the client's request is ever
 * forwarded (no cookies, no auth, no X-Forwarded-For): the upstream sees LinkPeek, not the caller.
 * Accept and Accept-Language are a browser's; the User-Agent stays our own, honest one.
 */
export function requestHeaders(config: Pick<Config, 'userAgent'>, accept: string = PAGE_ACCEPT): Record<string, string> {
  return {
    'user-agent': config.userAgent,
    accept,
    'accept-language': ACCEPT_LANGUAGE,
    'accept-encoding': ACCEPT_ENCODING,
    via: OUR_VIA,
  };
}

/**
 * Extra request headers our own callers may set per fetch (lower-case). Range lets the image
 * probe read only the first bytes. Anything else is a programming error and throws, so a client
 * header can never be passed through by accident.
 */
export const CALLER_HEADERS: ReadonlySet<string> = new Set(['range']);

// ---- Image proxy (docs/SPEC.md, the image proxy endpoint) ---------------------------------

/** One image format the proxy serves: image-size's name for it and its MIME type. */
export interface ProxyImageFormat {
  /** image-size's type name (its validate() reads the signature). */
  name: 'jpg' | 'png' | 'gif' | 'webp';
  /**
   * The Content-Type sent with it. The upstream's label only has to be image/*: when it names the
   * same format it is this very value, otherwise the bytes win (openapi.yaml enumerates exactly
   * these four, so spellings like image/jpg or image/x-png are answered in canonical form).
   */
  mime: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
}

/**
 * The only formats the proxy passes, decided by the bytes, never by the upstream's word (docs/SPEC.md
 * rule 1). Everything else is refused, and why: SVG is a document that runs script; HTML is not
 * an image; BMP, TIFF, ICO and AVIF are not in the contract (and TIFF/BMP decoders are a classic
 * attack surface). Their signatures are disjoint (FF D8, 89 PNG, GIF8, RIFF…WEBP), so the first
 * bytes name at most one.
 */
export const PROXY_IMAGE_FORMATS: readonly ProxyImageFormat[] = [
  { name: 'jpg', mime: 'image/jpeg' },
  { name: 'png', mime: 'image/png' },
  { name: 'gif', mime: 'image/gif' },
  { name: 'webp', mime: 'image/webp' },
];

/** Bytes peeked before any header is sent: the longest signature read (PNG's IHDR check in a CgBI PNG reaches byte 32). */
export const PROXY_PEEK_BYTES = 32;

/** Accept of an image proxy fetch: the formats we pass, in our order of preference. */
export const PROXY_ACCEPT = 'image/webp,image/png,image/jpeg,image/gif;q=0.9';

/**
 * Headers of every proxied image. The bytes come from anywhere, so the browser is told
 * to take them as the image type we checked and nothing else: no sniffing, and if it is opened
 * as a document anyway, no script, no subresources, a unique origin.
 */
export const PROXY_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  // docs/SPEC.md "Limits": proxy responses are cacheable for one day.
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
};

/**
 * Upstream response headers the image proxy may pass on to its client (docs/SPEC.md, image proxy:
 * "Content-Type is the upstream image content type"). Everything else, notably Set-Cookie and the
 * upstream's CORS and caching headers, stays with us.
 */
export const FORWARDABLE_RESPONSE_HEADERS: ReadonlySet<string> = new Set(['content-type', 'etag', 'last-modified']);
