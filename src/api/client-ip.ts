// Who is asking, for rate limiting (docs/SPEC.md "Authentication": clients are identified only by IP).
// The socket address, unless TRUST_PROXY is set: then the last X-Forwarded-For entry, the one our
// own load balancer appended; earlier entries are the caller's to forge.
// This is what Koa's ctx.ip gives with `proxy: true, maxIpsCount: 1`, read from the bare request,
// with the socket's address parsed once per connection.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { clientOf, type Client } from '../client-key.js';

/** A keep-alive connection asks many times: its address is parsed once (a few µs a parse). */
const bySocket = new WeakMap<Socket, Client>();

/** The client of a request: its canonical address and the key its budget is counted under. */
export function requestClient(req: IncomingMessage, trustProxy: boolean): Client {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const forwarded = Array.isArray(header) ? header.join(',') : header;
    const last = forwarded ? forwarded.slice(forwarded.lastIndexOf(',') + 1).trim() : '';
    if (last !== '') return clientOf(last);
  }
  const socket = req.socket;
  let client = bySocket.get(socket);
  if (client === undefined) {
    client = clientOf(socket.remoteAddress || 'unknown');
    bySocket.set(socket, client);
  }
  return client;
}

/** The client address in one canonical spelling: `::ffff:127.0.0.2` and `127.0.0.2` are one client. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  return requestClient(req, trustProxy).ip;
}
