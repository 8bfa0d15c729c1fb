// Who is asking, for rate limiting (docs/SPEC.md "Authentication": clients are identified only by IP).
// The socket address, unless TRUST_PROXY is set: then the last X-Forwarded-For entry, the one our
// own load balancer appended; earlier entries are the caller's to forge.
// This is what Koa's ctx.ip gives with `proxy: true, maxIpsCount: 1`, read from the bare request
// so that the cached-hit fast path (api/fast-path.ts), which runs before Koa, agrees with it.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A keep-alive connection asks many times: its canonical address is worked out once. */
const bySocket = new WeakMap<Socket, string>();

/** The client address in one canonical spelling: `::ffff:127.0.0.2` and `127.0.0.2` are one client. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const forwarded = Array.isArray(header) ? header.join(',') : header;
    const last = forwarded ? forwarded.slice(forwarded.lastIndexOf(',') + 1).trim() : '';
    if (last !== '') return canonical(last);
  }
  const socket = req.socket;
  let ip = bySocket.get(socket);
  if (ip === undefined) {
    ip = canonical(socket.remoteAddress || 'unknown');
    bySocket.set(socket, ip);
  }
  return ip;
}

function canonical(raw: string): string {
  try {
    return ipaddr.process(raw).toString();
  } catch {
    return raw;
  }
}
