// The 302's Location for a metadata request without `url`: docs/SPEC.md asks for "an absolute URI
// to this same endpoint" with the showcase page as `url`. Under PUBLIC_BASE_URL when it is set;
// otherwise on the origin the request was sent to: its scheme and its Host header, when that
// header is a well-formed host and port (RFC 9110 7.2, RFC 3986 3.2.2), else the address the
// connection arrived at. The 302 is `no-store` (router.ts), so a forged Host redirects only the
// client that forged it: no shared cache keeps it for anyone else.

import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Config } from '../config.js';
import { PATHS } from '../paths.js';
import { clientOf } from '../client-key.js';
import { ProxyTrust } from '../trusted-proxies.js';

/** What the Location is made of, read from one request. */
export interface ShowcaseRequest {
  req: IncomingMessage;
  /** The request's `prefer`, kept in the redirect (undefined when absent or repeated). */
  prefer: string | undefined;
}

/** Builds the Location for each request; the base is fixed when PUBLIC_BASE_URL is set. */
export function showcaseLocation(config: Pick<Config, 'publicBaseUrl' | 'showcaseUrl' | 'trustProxy'>): (request: ShowcaseRequest) => string {
  const trust = new ProxyTrust(config.trustProxy);
  // "https://example.org/linkpeek" is a folder: the endpoint goes under it.
  const fixedBase = config.publicBaseUrl === null ? null : config.publicBaseUrl.endsWith('/') ? config.publicBaseUrl : `${config.publicBaseUrl}/`;
  return ({ req, prefer }) => {
    const base = fixedBase ?? `${requestScheme(req, trust)}://${requestAuthority(req)}/`;
    const location = new URL(PATHS.metadata.slice(1), base);
    const query = new URLSearchParams({ url: config.showcaseUrl });
    if (prefer !== undefined) query.set('prefer', prefer);
    location.search = query.toString();
    return location.href;
  };
}

/**
 * `http` or `https`: the last X-Forwarded-Proto entry when the socket's peer is a proxy
 * TRUST_PROXY trusts (the one it wrote, as for X-Forwarded-For in client-ip.ts), else whether
 * the socket is TLS.
 */
function requestScheme(req: IncomingMessage, trust: ProxyTrust): 'http' | 'https' {
  if (trust.enabled && trust.trusts(clientOf(req.socket.remoteAddress ?? '').ip)) {
    const header = req.headers['x-forwarded-proto'];
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').at(-1)!.trim().toLowerCase();
    if (forwarded === 'http' || forwarded === 'https') return forwarded;
  }
  return (req.socket as TLSSocket).encrypted ? 'https' : 'http';
}

/** A DNS name: dot-separated labels of letters, digits and inner hyphens (RFC 1123 2.1), 253 at most. */
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
const PORT = /^[1-9][0-9]{0,4}$/;

/**
 * The Host header when it is a DNS name, an IPv4 address or a bracketed IPv6 address, with an
 * optional port of 1–65535. Anything else (spaces, `@`, a path, a port over 65535, no Host at
 * all in HTTP/1.0) gives the address and port the connection arrived at.
 */
export function requestAuthority(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host !== undefined && isAuthority(host)) return host.toLowerCase();
  return listeningAuthority(req);
}

export function isAuthority(value: string): boolean {
  const match = /^(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/.exec(value);
  if (!match) return false;
  const [, host, port] = match as unknown as [string, string, string | undefined];
  if (port !== undefined && !(PORT.test(port) && Number(port) <= 65535)) return false;
  const wellFormed = host.startsWith('[') ? net.isIPv6(host.slice(1, -1)) : net.isIPv4(host) || DNS_NAME.test(host);
  // Only a host the URL parser keeps as it is: "1.2.3" (an IPv4 address to it), "0x7f.1" or
  // "[::0001]" would change under it, and a name ending in a number ("example.123") fails it.
  return wellFormed && URL.parse(`http://${host}/`)?.hostname === host.toLowerCase();
}

function listeningAuthority(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket;
  // A dual-stack listener sees IPv4 clients at ::ffff:a.b.c.d: that is the IPv4 address.
  const address = (localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return `${net.isIPv6(address) ? `[${address}]` : address}:${localPort}`;
}
