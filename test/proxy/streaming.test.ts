// Size, truncation and hang-ups: MAX_IMAGE_BYTES is enforced on Content-Length before
// reading and on the bytes streamed; a cut or oversize body aborts the client's connection (never
// a truncated 200 that looks complete); a client hanging up closes the upstream too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http, { type ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { endless, respond, startUpstream, stall, type Upstream, type UpstreamProtocol, letGo, letGoAsExpected } from '../helpers/upstream.js';
import { png, pngOfSize } from './images.js';
import { rawGet, startProxyService, type ProxyService } from './harness.js';
import { until } from '../helpers/until.js';

const test = suite('image proxy streaming');
const MiB = 1024 * 1024;
const MAX = 8 * MiB;

function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([promise, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref())]);
}

/** Headers and the PNG head, then `bytes` more in 64 KiB chunks, then (unless `end`) hang. */
function slowImage(head: Buffer, opts: { declared?: number; total: number; end: boolean; destroyAtEnd?: boolean }) {
  return (_req: unknown, res: ServerResponse) => {
    const headers: Record<string, string | number> = { 'content-type': 'image/png' };
    if (opts.declared !== undefined) headers['content-length'] = opts.declared;
    res.writeHead(200, headers);
    res.write(head);
    let sent = head.length;
    const chunk = Buffer.alloc(64 * 1024, 0x42);
    const pump = () => {
      while (sent < opts.total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, opts.total - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (opts.destroyAtEnd) setTimeout(() => res.destroy(), 20);
      else if (opts.end) res.end();
    };
    pump();
  };
}

const head = png();
const AT_MAX = pngOfSize(MAX);

let up: Upstream;
let proxy: ProxyService;
test.before(async () => {
  up = await startUpstream({
    routes: {
      '/at-max': respond(200, AT_MAX, { 'content-type': 'image/png' }),
      '/declared-over-max': slowImage(head, { declared: MAX + 1, total: MAX + 1, end: true }) as never,
      '/chunked-over-max': endless(Buffer.alloc(64 * 1024, 0x42), { 'content-type': 'image/png' }),
      '/truncated': slowImage(head, { declared: 3 * MiB, total: 2 * MiB, end: false, destroyAtEnd: true }) as never,
      '/truncated-chunked': slowImage(head, { total: 2 * MiB, end: false, destroyAtEnd: true }) as never,
      '/big-slow': slowImage(head, { total: 6 * MiB, end: false }) as never,
      '/stall': stall(),
      '/stall-body': slowImage(head, { declared: MiB, total: 1000, end: false }) as never,
      '/steady': steadyImage as never,
    },
  });
  // chunked-over-max starts with the PNG head too: endless() repeats one chunk, so prefix it.
  proxy = await startProxyService({ FETCH_TIMEOUT_MS: '1500' });
});
test.after(async () => {
  await proxy.close();
  await up.close();
});

/** 512 KiB of PNG in 64 KiB chunks, one every 300 ms: 2.4 s in all, longer than the 1.5 s fetch deadline. */
const STEADY = pngOfSize(512 * 1024);
function steadyImage(_req: unknown, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(STEADY.length) });
  let sent = 0;
  const next = () => {
    if (res.destroyed) return;
    const piece = STEADY.subarray(sent, sent + 64 * 1024);
    sent += piece.length;
    if (sent >= STEADY.length) res.end(piece);
    else {
      res.write(piece);
      setTimeout(next, 300);
    }
  };
  next();
}

const url = (path: string, target: Upstream = up) => `${proxy.service.baseUrl}${proxy.path(target.url(path))}`;

test('an image of exactly MAX_IMAGE_BYTES (8 MiB) passes whole and intact', async () => {
  const res = await rawGet(url('/at-max'));
  assert.is(res.status, 200);
  assert.is(res.aborted, false);
  assert.is(res.headers['content-length'], String(MAX));
  assert.ok(res.body.equals(AT_MAX));
});

for (const protocol of ['https', 'h2'] as UpstreamProtocol[]) {
  test(`a 3 MB image from an ${protocol} upstream streams intact`, async () => {
    const image = pngOfSize(3_000_000);
    const tls = await startUpstream({ protocol, routes: { '/i.png': respond(200, image, { 'content-type': 'image/png' }) } });
    try {
      const res = await rawGet(url('/i.png', tls));
      assert.is(res.status, 200);
      assert.is(res.aborted, false);
      assert.is(res.headers['content-length'], '3000000');
      assert.ok(res.body.equals(image));
      assert.is(tls.requests[0]!.httpVersion, protocol === 'h2' ? '2.0' : '1.1');
    } finally {
      await tls.close();
    }
  });
}

test('a gzip-encoded image is decoded and sent chunked (its Content-Length counted encoded bytes)', async () => {
  const image = pngOfSize(200_000);
  const gz = await startUpstream({
    routes: { '/i.png': respond(200, zlib.gzipSync(image), { 'content-type': 'image/png', 'content-encoding': 'gzip' }) },
  });
  try {
    const res = await rawGet(url('/i.png', gz));
    assert.is(res.status, 200);
    assert.is(res.aborted, false);
    assert.is(res.headers['content-length'], undefined);
    assert.is(res.headers['content-encoding'], undefined);
    assert.ok(res.body.equals(image));
  } finally {
    await gz.close();
  }
});

test('a Content-Length over MAX_IMAGE_BYTES is refused (502 too_large) before reading the body', async () => {
  const res = await proxy.service.request(proxy.path(up.url('/declared-over-max')));
  assert.is(res.status, 502);
  assert.equal(res.json, { error: 'The image could not be fetched. The image is larger than 8 MiB.', reason: 'too_large' });
  assert.is(res.headers.get('cache-control'), 'no-store');
  const seen = up.requests.find((r) => r.path === '/declared-over-max')!;
  assert.is(await within(seen.outcome, 1000), 'closed early', 'the upstream was closed, not read to the end');
});

for (const protocol of ['http', 'h2'] as UpstreamProtocol[]) {
  test(`an oversize chunked body (${protocol}) is cut at 8 MiB and the client connection aborted`, async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x42);
    head.copy(chunk);
    const big = await startUpstream({
      protocol,
      routes: {
        '/': (_req, res) => {
          let first = true;
          res.writeHead(200, { 'content-type': 'image/png' });
          const pump = () => {
            while (!res.destroyed) {
              const ok = (res as ServerResponse).write(first ? chunk : Buffer.alloc(64 * 1024, 0x43));
              first = false;
              if (!ok) return void res.once('drain', pump);
            }
          };
          pump();
        },
      },
    });
    try {
      const res = await rawGet(url('/', big));
      assert.is(res.status, 200);
      assert.is(res.headers['content-length'], undefined);
      assert.is(res.headers['transfer-encoding'], 'chunked');
      assert.is(res.aborted, true, 'the client sees a cut connection, not a complete response');
      assert.ok(res.body.length <= MAX, `received ${res.body.length}`);
      assert.ok(res.body.length > MAX - MiB, `received ${res.body.length}`);
      const outcome = await letGo(big.requests[0]!, 1000);
      // The proxy reads the upstream no faster than the egress budget lets its bytes leave.
      assert.ok(letGoAsExpected(protocol, outcome, true), `the upstream was let go: ${outcome}`);
    } finally {
      await big.close();
    }
  });
}

test('a truncated body (Content-Length 3 MiB, 2 MiB then the upstream hangs up) aborts the client', async () => {
  const res = await rawGet(url('/truncated'));
  assert.is(res.status, 200);
  assert.is(res.headers['content-length'], String(3 * MiB));
  assert.is(res.aborted, true);
  assert.ok(res.body.length < 3 * MiB);
});

test('a truncated chunked body aborts the client before the final chunk', async () => {
  const res = await rawGet(url('/truncated-chunked'));
  assert.is(res.status, 200);
  assert.is(res.aborted, true);
  assert.ok(res.body.length <= 2 * MiB);
});

test('a lying Content-Length (HTTP/2: declares 1000, sends 5000) never yields a complete-looking 200', async () => {
  const liar = await startUpstream({
    protocol: 'h2',
    routes: {
      '/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1000 });
        res.end(Buffer.concat([head, Buffer.alloc(5000 - head.length, 0x42)]));
      },
    },
  });
  try {
    const res = await rawGet(url('/', liar)).catch((err: Error) => ({ status: 0, aborted: true, error: err.message }));
    // Either refused before any header (502) or cut mid-stream: never a 200 that completes.
    assert.ok(res.status === 502 || res.aborted, JSON.stringify({ status: res.status, aborted: res.aborted }));
    assert.ok(!(res.status === 200 && !res.aborted));
  } finally {
    await liar.close();
  }
});

test('a client hanging up mid-stream closes the upstream connection too (seen at the upstream)', async () => {
  const before = up.requests.length;
  const res = await rawGet(url('/big-slow'), { stopAfter: 256 * 1024 });
  assert.is(res.aborted, true);
  const seen = up.requests.slice(before).find((r) => r.path === '/big-slow')!;
  assert.is(await within(seen.outcome, 1000), 'closed early');
  assert.is(proxy.fetcher.limiter.inFlight, 0, 'the fetch slot is free again');
});

test('stalled upstream headers: 504 {error, reason: timeout} with no-store at the deadline', async () => {
  const started = Date.now();
  const res = await proxy.service.request(proxy.path(up.url('/stall')));
  assert.is(res.status, 504);
  assert.equal(res.json, { error: 'The image took too long to fetch. The site did not answer within 1.5 s.', reason: 'timeout' });
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.ok(Date.now() - started < 2500);
});

test('a body that stalls after the headers left: the client connection is aborted at the deadline', async () => {
  const started = Date.now();
  const res = await rawGet(url('/stall-body'));
  assert.is(res.status, 200);
  assert.is(res.aborted, true);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 1400 && elapsed < 2500, `aborted after ${elapsed} ms`);
});

test('a slow but steady image, longer in all than the fetch deadline, passes whole: the body is bounded by its progress', async () => {
  const started = Date.now();
  const res = await rawGet(url('/steady'));
  assert.ok(Date.now() - started > 1500, 'it did take longer than FETCH_TIMEOUT_MS');
  assert.is(res.status, 200);
  assert.is(res.aborted, false);
  assert.ok(res.body.equals(STEADY), `${res.body.length} of ${STEADY.length} bytes, intact`);
});

test('a steady image that takes longer than PROXY_BODY_TIMEOUT_MS in all is cut there', async () => {
  const strict = await startProxyService({ FETCH_TIMEOUT_MS: '1500', PROXY_BODY_TIMEOUT_MS: '1000' });
  try {
    const started = Date.now();
    const res = await rawGet(`${strict.service.baseUrl}${strict.path(up.url('/steady'))}`);
    assert.is(res.status, 200);
    assert.is(res.aborted, true);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 2200, `aborted after ${elapsed} ms`);
  } finally {
    await strict.close();
  }
});

test('HEAD answers the image headers without a body and closes the upstream at once', async () => {
  const before = up.requests.length;
  const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) =>
    http.request(url('/big-slow'), { method: 'HEAD', agent: false }, resolve).on('error', reject).end(),
  );
  res.resume();
  assert.is(res.statusCode, 200);
  assert.is(res.headers['content-type'], 'image/png');
  const seen = up.requests.slice(before).find((r) => r.path === '/big-slow')!;
  assert.is(await within(seen.outcome, 500), 'closed early', 'not held until the deadline');
  assert.is(proxy.fetcher.limiter.inFlight, 0);
});

test('past the concurrency cap and its queue: 503 {error} with Retry-After, not a pile-up', async () => {
  const small = await startProxyService({ MAX_CONCURRENT_FETCHES: '1', FETCH_QUEUE_MAX: '0', FETCH_TIMEOUT_MS: '1000' });
  try {
    const first = rawGet(`${small.service.baseUrl}${small.path(up.url('/stall'))}`);
    await until(() => small.fetcher.limiter.inFlight > 0, 'the first fetch in flight');
    const res = await small.service.request(small.path(up.url('/at-max')));
    assert.is(res.status, 503);
    assert.equal(res.json, { error: 'The service is busy; retry in a second.' });
    assert.is(res.headers.get('retry-after'), '1');
    assert.is(res.headers.get('cache-control'), 'no-store');
    assert.is((await first).status, 504);
  } finally {
    await small.close();
  }
});

test.run();
