// The fixture upstream of the end-to-end benchmarks, in its own process: serves every
// corpus page at /page/<name>?v=<anything> with its declared content-type, and counts how many
// bytes of each page it handed to the socket before the response finished or the client closed.
//
// Counting: the page is written in 16 KiB writes, each waiting for 'drain' when the socket's
// buffer is full, and a write only counts once the socket accepted it. The kernel still absorbs
// writes into the loopback socket buffers (hundreds of KiB, autotuned), so this is an UPPER bound
// on what the client read; the in-process measurement (bench/bytes.ts) gives what the pipeline
// itself pulled. Stats: GET /__stats answers the per-request records collected since the last call.
//
// Started by the benchmarks as `node --import tsx bench/lib/upstream.ts`; prints "LISTENING <port>" on stderr.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadManifest, readPage } from './corpus.js';

const CHUNK = 16 * 1024;

interface Served {
  page: string;
  size: number;
  written: number;
  complete: boolean;
}

const pages = new Map(loadManifest().map((p) => [p.name, { ...p, bytes: readPage(p.name) }]));
let served: Served[] = [];

async function writePage(res: http.ServerResponse, bytes: Buffer, record: Served): Promise<void> {
  let closed = false;
  res.once('close', () => (closed = true));
  for (let offset = 0; offset < bytes.length && !closed; offset += CHUNK) {
    const chunk = bytes.subarray(offset, offset + CHUNK);
    // A chunk counts once the socket took it: at once, or at 'drain'; not when the client left first.
    if (res.write(chunk) || (await drained(res))) record.written += chunk.length;
  }
  if (!closed) {
    res.end();
    record.complete = true;
  }
}

function drained(res: http.ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = () => finish(true);
    const onClose = () => finish(false);
    const finish = (value: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(value);
    };
    if (res.destroyed || res.writableEnded) return resolve(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://upstream');
  if (url.pathname === '/__stats') {
    const body = JSON.stringify(served);
    served = [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  const match = /^\/page\/([^/]+)$/.exec(url.pathname);
  const page = match ? pages.get(decodeURIComponent(match[1]!)) : undefined;
  if (!page) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const record: Served = { page: page.name, size: page.size, written: 0, complete: false };
  served.push(record);
  res.writeHead(200, { 'content-type': page.contentType, 'content-length': String(page.bytes.length) });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  void writePage(res, page.bytes, record);
});
server.keepAliveTimeout = 5_000;
server.on('clientError', (_err, socket) => socket.destroy());
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
