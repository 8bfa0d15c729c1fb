// Who is asking, for rate limiting (SPEC.md "Authentication": clients are identified only by IP).
// The socket address, unless TRUST_PROXY is set: then Koa reads X-Forwarded-For, and with
// maxIpsCount = 1 it takes the last entry, the one our own load balancer appended; earlier
// entries are the caller's to forge (DESIGN.md "Client IP").

import type { Context } from 'koa';
import ipaddr from 'ipaddr.js';

/** The client address in one canonical spelling: `::ffff:127.0.0.2` and `127.0.0.2` are one client. */
export function clientIp(ctx: Context): string {
  const raw = ctx.ip || ctx.socket.remoteAddress || 'unknown';
  try {
    return ipaddr.process(raw).toString();
  } catch {
    return raw;
  }
}
