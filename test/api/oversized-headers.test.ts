import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { doc } from '../helpers/contract.js';
import { startService } from '../helpers/service.js';

// openapi.yaml says a request whose headers exceed 16 KiB is answered 431 by Node's HTTP server,
// bare (no body, none of LinkPeek's headers), on every path; it lists the 431 on the operations
// that have no other client error.

/** The whole answer to a GET of `path` with one header of `size` bytes. */
function getWithHeader(port: number, path: string, size: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(`GET ${path} HTTP/1.1\r\nHost: lp.test\r\nX-Pad: ${'a'.repeat(size)}\r\n\r\n`));
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => resolve(answer));
  });
}

test('headers over 16 KiB: a bare 431 from the HTTP server, as documented', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const port = Number(new URL(svc.baseUrl).port);
    for (const path of ['/healthz', '/component.js', '/', '/docs', '/openapi.yaml']) {
      assert.ok(doc.paths[path].get.responses['431'], `${path} documents the 431`);
      assert.is(await getWithHeader(port, path, 17 * 1024), 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n', path);
    }
    assert.match(await getWithHeader(port, '/healthz', 15 * 1024), /^HTTP\/1\.1 200 OK\r\n/, 'under the limit the service answers');
  } finally {
    await svc.close();
  }
});

test.run();
