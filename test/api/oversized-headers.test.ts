import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { doc } from '../helpers/contract.js';
import { startService } from '../helpers/service.js';

// openapi.yaml says a request whose headers exceed 16 KiB is answered 431 by the HTTP server, and
// one it cannot parse as HTTP 400, before LinkPeek reads it: an ApiError with the CORS and nosniff
// headers, then the connection closes. It lists the 431 on the operations that have no other
// client error.

/** The whole answer to `request`, written raw to the service. */
function rawAnswer(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(Buffer.from(request, 'latin1')));
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => resolve(answer));
  });
}

/** Node's answer with LinkPeek's error body and headers. */
function jsonAnswer(status: string, body: object): string {
  const json = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${json.length}\r\n` +
    'Access-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: LinkPeek-Warning, Retry-After, Server-Timing, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id\r\n' +
    `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`
  );
}

test('headers over 16 KiB: a 431 with the JSON error shape and CORS, as documented', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const port = Number(new URL(svc.baseUrl).port);
    const get = (path: string, size: number) => rawAnswer(port, `GET ${path} HTTP/1.1\r\nHost: lp.test\r\nX-Pad: ${'a'.repeat(size)}\r\n\r\n`);
    for (const path of ['/healthz', '/component.js', '/', '/docs', '/openapi.yaml']) {
      assert.ok(doc.paths[path].get.responses['431'], `${path} documents the 431`);
      assert.is(
        await get(path, 17 * 1024),
        jsonAnswer('431 Request Header Fields Too Large', { code: 431, message: "The request's headers exceed 16 KiB." }),
        path,
      );
    }
    assert.match(await get('/healthz', 15 * 1024), /^HTTP\/1\.1 200 OK\r\n/, 'under the limit the service answers');
  } finally {
    await svc.close();
  }
});

test('a control or non-ASCII byte in the request line: a 400 with the JSON error shape and CORS, and the service keeps answering', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const port = Number(new URL(svc.baseUrl).port);
    const malformed = jsonAnswer('400 Bad Request', {
      code: 400,
      message: 'The request is not valid HTTP (a control or non-ASCII byte in its request line or headers?).',
    });
    for (const line of ['GET /v1/metadata?url=a\x01b HTTP/1.1', 'GET /v1/metadata?url=caf\xe9 HTTP/1.1', 'GET / HTTP/1.1 extra']) {
      assert.is(await rawAnswer(port, `${line}\r\nHost: lp.test\r\n\r\n`), malformed, JSON.stringify(line));
    }
    assert.is((await svc.request('/healthz')).status, 200);
  } finally {
    await svc.close();
  }
});

test.run();
