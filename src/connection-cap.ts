// A cap on one client's open connections, applied as each is accepted: 5,000 connections from
// one address were all accepted, each a descriptor, a parser and a place to send requests from
// in parallel. A connection over the cap is closed at once. Not low: a client that reconnects
// as soon as it is closed makes the server accept and close connections as fast as it can,
// which cost a bystander more than the keep-alive connections themselves did (measured with
// one address opening 32 against a cap of 8). Holding such connections unread instead is not
// possible from outside Node's HTTP server (its parser reads the socket natively). Proxies
// TRUST_PROXY trusts carry many clients and are not capped (the requests they forward are, per
// client, by api/client-concurrency.ts).

import type http from 'node:http';
import type { Socket } from 'node:net';
import { clientOf } from './client-key.js';
import type { ProxyTrust } from './trusted-proxies.js';

export function capConnectionsPerClient(server: http.Server, limit: number, trust: ProxyTrust): void {
  if (limit === 0) return;
  const open = new Map<string, number>();
  // Before Node's own listener, which then finds the socket closed.
  server.prependListener('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress ?? 'unknown');
    if (trust.enabled && trust.trusts(client.ip)) return;
    const held = open.get(client.key) ?? 0;
    if (held >= limit) {
      socket.destroy();
      return;
    }
    open.set(client.key, held + 1);
    socket.once('close', () => {
      const left = open.get(client.key)! - 1;
      if (left === 0) open.delete(client.key);
      else open.set(client.key, left);
    });
  });
}
