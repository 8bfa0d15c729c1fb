// One request driven through an app's request listener inside the process, on a socket that
// swallows what is written: no syscalls, no HTTP parsing, no load generator on the same cores
// (bench/hit-cost.ts, bench/refusal-cost.ts). Resolves with the answer's status.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

export interface InProcessRequest {
  url: string;
  /** The socket's peer address. */
  remoteAddress: string;
  headers?: Record<string, string>;
}

export function ask(listener: (req: IncomingMessage, res: ServerResponse) => unknown, { url, remoteAddress, headers = {} }: InProcessRequest): Promise<number> {
  const socket = new Duplex({ write: (_chunk, _encoding, done) => done(), read() {} });
  Object.defineProperty(socket, 'remoteAddress', { value: remoteAddress });
  const req = new IncomingMessage(socket as unknown as Socket);
  req.method = 'GET';
  req.url = url;
  req.headers = { host: 'linkpeek.test', 'accept-encoding': 'gzip, deflate, br', ...headers };
  const res = new ServerResponse(req);
  res.assignSocket(socket as unknown as Socket);
  return new Promise((resolve) => {
    // Node's server emits 'close' on the next tick after 'finish' (_http_server.js resOnFinish):
    // the per-client count of requests in flight (api/client-concurrency.ts) ends on it.
    res.on('finish', () => {
      process.nextTick(() => res.emit('close'));
      resolve(res.statusCode);
    });
    void listener(req, res);
  });
}
