import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { checkedRequest } from '../helpers/service.js';
import { startProcess } from '../helpers/process.js';
import { stall, startUpstream } from '../helpers/upstream.js';
import { gate, until } from '../helpers/until.js';

/** 'connected', or the error code of a connection attempt (ECONNREFUSED once nothing listens). */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} during a slow request: it finishes, new connections are refused, the process exits 0`, async () => {
    const arrived = gate();
    const finish = gate();
    const up = await startUpstream({
      routes: {
        '/slow': async (_req, res) => {
          arrived.open();
          await finish.promise;
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<title>Finished</title>');
        },
      },
    });
    const svc = await startProcess({ RATE_LIMIT_MAX: '0', SHUTDOWN_GRACE_MS: '5000', PROBE_IMAGES: 'false' });
    try {
      const slow = checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url('/slow').href)}`);
      await arrived.promise;
      svc.child.kill(signal);
      await until(() => svc.logs.some((l) => l.msg === 'shutting down'), 'the shutdown to begin');
      // The listener closes right after that line; the slow request is held until it has.
      const port = Number(new URL(svc.baseUrl).port);
      await until(async () => (await connectOutcome(port)) === 'ECONNREFUSED', 'new connections to be refused');
      finish.open();
      const res = await slow;
      assert.is(res.status, 200);
      assert.is(res.json.title, 'Finished');
      assert.is(await svc.exited, 0);
      assert.ok(svc.logs.some((l) => l.msg === 'shutting down' && l.signal === signal));
    } finally {
      finish.open();
      await svc.stop('SIGKILL');
      await up.close();
    }
  });
}

test('a request still running when the grace period ends is cut, its upstream fetch with it, and the process exits 1', async () => {
  const up = await startUpstream({ routes: { '/slower': stall() } });
  // The fetch's own deadline far beyond the grace: the exit must not wait for it.
  const FETCH_TIMEOUT_MS = 60_000;
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', SHUTDOWN_GRACE_MS: '500', PROBE_IMAGES: 'false', FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS) });
  try {
    const slow = checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url('/slower').href)}`).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code ?? 'error',
    );
    await until(() => up.hits('/slower') === 1, 'the request to reach the upstream');
    svc.child.kill('SIGTERM');
    const waitedForFetch = new Promise<string>((resolve) =>
      setTimeout(() => resolve('still running at half the fetch deadline'), FETCH_TIMEOUT_MS / 2).unref(),
    );
    assert.is(await Promise.race([svc.exited, waitedForFetch]), 1);
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
