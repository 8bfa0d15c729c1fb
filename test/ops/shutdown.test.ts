import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import { checkedRequest } from '../helpers/service.js';
import { startProcess } from '../helpers/process.js';
import { stall, startUpstream } from '../helpers/upstream.js';
import { gate, until } from '../helpers/until.js';
import { rawGet } from '../proxy/harness.js';
import { pngOfSize } from '../proxy/images.js';

/** What `promise` settled to within `ms`, or 'still running'. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still running'> {
  return Promise.race([promise, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms).unref())]);
}

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

test('SIGTERM under load: /healthz answers 503 stopping while the listener still accepts, then it closes, and no request in flight is cut', async () => {
  const finish = gate();
  const pageArrived = gate();
  const imageStarted = gate();
  const image = pngOfSize(256 * 1024);
  const html = { 'content-type': 'text/html' };
  const up = await startUpstream({
    routes: {
      '/slow': async (_req, res) => {
        pageArrived.open();
        await finish.promise;
        res.writeHead(200, html);
        res.end('<title>Finished</title>');
      },
      '/fast': (_req, res) => {
        res.writeHead(200, html);
        res.end('<title>Accepted while draining</title>');
      },
      '/image.png': async (_req, res: unknown) => {
        if (!(res instanceof http.ServerResponse)) throw new Error('an HTTP/1.1 upstream');
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(image.length) });
        res.write(image.subarray(0, 64 * 1024));
        imageStarted.open();
        await finish.promise;
        res.end(image.subarray(64 * 1024));
      },
    },
  });
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', SHUTDOWN_DRAIN_MS: '3000', SHUTDOWN_GRACE_MS: '20000', PROBE_IMAGES: 'false' });
  try {
    const metadata = (path: string) => checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url(path).href)}`);
    const slow = metadata('/slow');
    const picture = rawGet(`${svc.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(up.url('/image.png').href)}`);
    await pageArrived.promise;
    await imageStarted.promise;
    svc.child.kill('SIGTERM');
    await until(() => svc.logs.some((l) => l.msg === 'shutting down'), 'the shutdown to begin');

    // Each on a new connection: the listener still accepts, and says it is stopping.
    const health = await checkedRequest(`${svc.baseUrl}/healthz`);
    assert.is(health.status, 503);
    assert.is((health.json as { status: string }).status, 'stopping');
    const late = await metadata('/fast');
    assert.is(late.status, 200);
    assert.is((late.json as { title: string }).title, 'Accepted while draining');

    const port = Number(new URL(svc.baseUrl).port);
    await until(async () => (await connectOutcome(port)) === 'ECONNREFUSED', 'the listener to close after the drain');
    finish.open();
    const page = await slow;
    assert.is(page.status, 200);
    assert.is((page.json as { title: string }).title, 'Finished');
    const proxied = await picture;
    assert.is(proxied.status, 200);
    assert.not.ok(proxied.aborted, 'the proxied image was not cut');
    assert.ok(proxied.body.equals(image), `all ${image.length} bytes of the image arrived (${proxied.body.length})`);
    assert.is(await svc.exited, 0);
  } finally {
    finish.open();
    await svc.stop('SIGKILL');
    await up.close();
  }
});

test('SIGTERM with a closed stdout pipe: the process exits within the grace plus 2 s', async () => {
  const GRACE_MS = 1000;
  const svc = await startProcess({ SHUTDOWN_GRACE_MS: String(GRACE_MS), SHUTDOWN_DRAIN_MS: '500' });
  try {
    const sent = Date.now();
    svc.child.kill('SIGTERM');
    await until(() => svc.logs.some((l) => l.msg === 'shutting down'), 'the shutdown to begin');
    // The log collector dies: every line from here on (the drain's end, "stopped") meets a closed pipe.
    svc.child.stdout!.destroy();
    assert.is(await within(svc.exited, GRACE_MS + 2_000 - (Date.now() - sent)), 0);
  } finally {
    await svc.stop('SIGKILL');
  }
});

test('a second signal during the drain exits at once', async () => {
  const svc = await startProcess({ SHUTDOWN_GRACE_MS: '60000', SHUTDOWN_DRAIN_MS: '30000' });
  try {
    svc.child.kill('SIGTERM');
    await until(() => svc.logs.some((l) => l.msg === 'shutting down'), 'the shutdown to begin');
    const sent = Date.now();
    svc.child.kill('SIGINT');
    assert.is(await within(svc.exited, 5_000), 1);
    assert.ok(Date.now() - sent < 5_000);
  } finally {
    await svc.stop('SIGKILL');
  }
});

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
