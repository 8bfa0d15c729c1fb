// Who is asking, for rate limiting (docs/SPEC.md "Authentication": clients are identified only by IP).
// The socket address, unless TRUST_PROXY trusts the socket's peer as a proxy
// (trusted-proxies.ts): then X-Forwarded-For is read from its last entry, the one that proxy
// appended, leftwards for as long as the entries are trusted proxies themselves; earlier
// entries are the caller's to forge. Entries are normalised to their address (load balancers
// write `1.2.3.4:5555` and `[2001:db8::1]:5555` too), and an entry that is no address never
// becomes a client of its own: the proxy that wrote it is counted instead.

import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';
import { clientOf, type Client } from '../client-key.js';
import type { ProxyTrust } from '../trusted-proxies.js';

/** A keep-alive connection asks many times: its address is parsed once (a few µs a parse). */
const bySocket = new WeakMap<Socket, Client>();

function socketClient(socket: Socket): Client {
  let client = bySocket.get(socket);
  if (client === undefined) {
    client = clientOf(socket.remoteAddress || 'unknown');
    bySocket.set(socket, client);
  }
  return client;
}

const BRACKETED_V6 = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const V4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/;

/**
 * The address of one X-Forwarded-For entry: `1.2.3.4`, `1.2.3.4:5555`, `2001:db8::1`,
 * `[2001:db8::1]` or `[2001:db8::1]:5555` (RFC 7239 6 spells node ports so; proxies write them
 * into X-Forwarded-For too). Null for anything else: a name, `unknown`, an obfuscated id, junk.
 */
export function forwardedAddress(entry: string): string | null {
  const text = entry.trim();
  const match = BRACKETED_V6.exec(text) ?? V4_WITH_PORT.exec(text);
  const [address, port] = match ? [match[1]!, match[2]] : [text, undefined];
  if (port !== undefined && Number(port) > 65535) return null;
  return net.isIP(address) === 0 ? null : address;
}

/** The client of a request: its canonical address and the keys its budgets are counted under. */
export function requestClient(req: IncomingMessage, trust: ProxyTrust): Client {
  const peer = socketClient(req.socket);
  if (!trust.enabled || !trust.trusts(peer.ip)) return peer;
  const header = req.headers['x-forwarded-for'];
  if (header === undefined) return peer;
  const entries = (Array.isArray(header) ? header.join(',') : header).split(',');
  let client = peer;
  for (let i = entries.length - 1, hop = 0; i >= 0 && hop < trust.hops; i--, hop++) {
    const address = forwardedAddress(entries[i]!);
    // What a trusted proxy wrote and is no address: that proxy is the client we know.
    if (address === null) return client;
    client = clientOf(address);
    if (!trust.trusts(client.ip)) return client;
  }
  return client;
}

/** The client address in one canonical spelling: `::ffff:127.0.0.2` and `127.0.0.2` are one client. */
export function clientIp(req: IncomingMessage, trust: ProxyTrust): string {
  return requestClient(req, trust).ip;
}
