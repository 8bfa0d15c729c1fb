// Hosts of the simulated internet: one web server per host name, on its own loopback address,
// that costs what a distant server costs. Each host has a fixed latency (one network round trip):
// a new connection waits it once before its handshake proceeds (TCP's SYN/ACK), and every
// response waits it again before its headers are written (request out, answer back). A page on a
// new connection therefore costs two round trips plus the work, a page on a pooled one costs one,
// as on the internet. Pair it with the world's nameserver (dns-server.ts), which gives the name
// this host's address.
//
//   const host = await startHost({
//     name: 'site.test', address: '127.0.0.1', latencyMs: 30,
//     listeners: [{ port: 0, protocol: 'h2' }],      // tests: port 0 and the port in the URL
//     tls: await ca.issue(['site.test']),             // https and h2 (tls.ts)
//     handle: (req, res) => res.end('hi'),
//   });
//   host.url('/page')    → https://site.test:PORT/page
//   host.connections     → TCP connections accepted so far
//   await host.close()
//
// 'h2' offers HTTP/2 and HTTP/1.1 over ALPN, as real HTTPS servers do; 'https' offers HTTP/1.1 only.

import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type HostProtocol = 'http' | 'https' | 'h2';
type HostRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type HostResponse = http.ServerResponse | http2.Http2ServerResponse;

export interface HostOptions {
  name: string;
  /** The loopback address this host alone listens on (127.0.0.1 in tests; 127.0.x.y in the benchmark world). */
  address: string;
  /** One round trip, ms: paid once per new connection and once per response. */
  latencyMs: number;
  /** Port 0 picks a free one (tests must; only the benchmark, alone on the machine, binds 80 and 443). */
  listeners: { port: number; protocol: HostProtocol }[];
  /** Key and certificate for the https and h2 listeners. */
  tls?: { key: string; cert: string };
  /** Answers a request, once the response latency has passed. */
  handle: (req: HostRequest, res: HostResponse) => void | Promise<void>;
}

export interface WorldHost {
  name: string;
  address: string;
  /** The port each listener got, in the order given. */
  ports: number[];
  /** An absolute URL on this host's first listener (default port left out, as pages write them). */
  url(path: string): URL;
  readonly connections: number;
  readonly requests: number;
  close(): Promise<void>;
}

export async function startHost(options: HostOptions): Promise<WorldHost> {
  const { latencyMs } = options;
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();

  const onRequest = (req: HostRequest, res: HostResponse) => {
    requests++;
    // The host's simulated network latency: part of the world, not a wait in a test.
    void sleep(latencyMs).then(async () => {
      try {
        await options.handle(req, res);
      } catch {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    });
  };

  const listeners = await Promise.all(
    options.listeners.map(async ({ port, protocol }) => {
      const inner = serverFor(protocol, options.tls, onRequest);
      // The outer TCP listener holds each new socket unread for one round trip, then hands it to
      // the HTTP/TLS server, so the client's handshake waits as it would for a distant server.
      const outer = net.createServer({ pauseOnConnect: true }, (socket) => {
        connections++;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {});
        setTimeout(() => {
          if (socket.destroyed) return;
          inner.emit('connection', socket);
          // Plain HTTP reads through the socket's stream, still paused; TLS took over its handle.
          if (protocol === 'http') socket.resume();
        }, latencyMs);
      });
      await new Promise<void>((resolve, reject) => {
        outer.once('error', reject);
        outer.listen(port, options.address, () => resolve());
      });
      return { outer, protocol, port: (outer.address() as AddressInfo).port };
    }),
  );

  const first = listeners[0]!;
  const scheme = first.protocol === 'http' ? 'http' : 'https';
  const defaultPort = scheme === 'http' ? 80 : 443;
  return {
    name: options.name,
    address: options.address,
    ports: listeners.map((l) => l.port),
    url: (path) => new URL(path, `${scheme}://${options.name}${first.port === defaultPort ? '' : `:${first.port}`}`),
    get connections() {
      return connections;
    },
    get requests() {
      return requests;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(listeners.map(({ outer }) => new Promise<void>((resolve) => outer.close(() => resolve()))));
    },
  };
}

function serverFor(protocol: HostProtocol, tls: HostOptions['tls'], onRequest: (req: HostRequest, res: HostResponse) => void): net.Server {
  if (protocol === 'http') return http.createServer(onRequest);
  if (!tls) throw new Error(`a ${protocol} host needs a certificate`);
  if (protocol === 'https') return https.createServer({ ...tls }, onRequest);
  const server = http2.createSecureServer({ ...tls, allowHTTP1: true }, onRequest);
  server.on('sessionError', () => {});
  return server;
}
