import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { checkedRequest } from '../helpers/service.js';
import { startProcess } from '../helpers/process.js';
import { startUpstream } from '../helpers/upstream.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} during a slow request: it finishes, new connections are refused, the process exits 0`, async () => {
    const up = await startUpstream({
      routes: {
        '/slow': async (_req, res) => {
          await sleep(1200);
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<title>Finished</title>');
        },
      },
    });
    const svc = await startProcess({ RATE_LIMIT_MAX: '0', SHUTDOWN_GRACE_MS: '5000', PROBE_IMAGES: 'false' });
    try {
      const slow = checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url('/slow').href)}`);
      await sleep(300);
      svc.child.kill(signal);
      await sleep(200);
      const port = Number(new URL(svc.baseUrl).port);
      const refused = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
      assert.is(refused, 'ECONNREFUSED');
      const res = await slow;
      assert.is(res.status, 200);
      assert.is(res.json.title, 'Finished');
      assert.is(await svc.exited, 0);
      assert.ok(svc.logs.some((l) => l.msg === 'shutting down' && l.signal === signal));
    } finally {
      await svc.stop('SIGKILL');
      await up.close();
    }
  });
}

test('a request still running when the grace period ends is cut and the process exits 1', async () => {
  const up = await startUpstream({
    routes: {
      '/slower': async (_req, res) => {
        await sleep(3000);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>Too late</title>');
      },
    },
  });
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', SHUTDOWN_GRACE_MS: '500', PROBE_IMAGES: 'false' });
  try {
    const slow = checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url('/slower').href)}`).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code ?? 'error',
    );
    await sleep(300);
    svc.child.kill('SIGTERM');
    assert.is(await svc.exited, 1);
    assert.is(await slow, 'ECONNRESET');
  } finally {
    await svc.stop('SIGKILL');
    await up.close();
  }
});

test('slow clients: headers dribbled for longer than HEADERS_TIMEOUT_MS are cut', async () => {
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', HEADERS_TIMEOUT_MS: '2000' });
  try {
    const port = Number(new URL(svc.baseUrl).port);
    const started = Date.now();
    const closedAfter = await new Promise<number>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
        const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 300);
        socket.on('close', () => {
          clearInterval(drip);
          resolve(Date.now() - started);
        });
        socket.on('error', () => {});
      });
    });
    // 2 s, checked every second (connectionsCheckingInterval)
    assert.ok(closedAfter >= 1_900 && closedAfter < 4_500, `closed after ${closedAfter} ms`);
  } finally {
    await svc.stop();
  }
});

test.run();
