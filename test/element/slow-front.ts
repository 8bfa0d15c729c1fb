// A front on 127.0.0.1:0 that passes every request to `target` after a delay chosen by path: the
// script arriving late, the API answering late, as on a slow network.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowFront {
  origin: string;
  close(): Promise<void>;
}

export async function startSlowFront(target: string, delayMs: (path: string) => number): Promise<SlowFront> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    setTimeout(
      () => {
        const forward = http.request(
          { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', () => res.writeHead(502).end());
        req.pipe(forward);
      },
      delayMs(req.url ?? '/'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
