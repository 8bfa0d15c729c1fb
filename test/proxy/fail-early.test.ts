// An image that will fail fails before its first byte leaves, wherever that can be known: the
// client gets an error answer it can read (and no-store), not a 200 whose connection is cut.
// Through the real app, against real upstreams.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { REJECTIONS } from '../../src/proxy/proxy.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import http from 'node:http';
import { GIF, JPEG, png, pngOfSize } from './images.js';
import { startProxyService, type ProxyService } from './harness.js';

const test = suite('image proxy: failing before the first byte');

/** A PNG of 1,500 bytes declared as 2,500: the upstream hangs up after what it has. */
const SHORT = png(3, 2, 1500 - png(3, 2).length);
/** A GIF whose logical screen is 1 pixel wide and 0 high. */
const GIF_ZERO_HIGH = Buffer.from(GIF).fill(0, 8, 10);

let up: Upstream;
let proxy: ProxyService;
test.before(async () => {
  up = await startUpstream({
    routes: {
      '/short.png': (_req, upstreamRes) => {
        const res = upstreamRes as ServerResponse;
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': '2500' });
        res.write(SHORT);
        setTimeout(() => res.destroy(), 20);
      },
      '/big-chunked.png': respond(200, png(3, 2, 8192), { 'content-type': 'image/png' }, { chunked: true }),
      '/soi-then-noise.jpg': respond(200, Buffer.concat([JPEG.subarray(0, 2), Buffer.from('<html><script>x</script></html>')]), {
        'content-type': 'image/jpeg',
      }),
      '/zero-wide.png': respond(200, png(0, 2), { 'content-type': 'image/png' }),
      '/zero-high.gif': respond(200, GIF_ZERO_HIGH, { 'content-type': 'image/gif' }),
      '/fine.png': respond(200, png(3, 2), { 'content-type': 'image/png' }),
    },
  });
  proxy = await startProxyService({ MAX_IMAGE_BYTES: '4096' });
});
test.after(async () => {
  await proxy.close();
  await up.close();
});

const get = (path: string) => proxy.service.request(proxy.path(up.url(path)));

test('a small image whose upstream hangs up short of its Content-Length: 502 before any byte, not a cut 200', async () => {
  const res = await get('/short.png');
  assert.is(res.status, 502);
  assert.equal(res.json, { error: 'The image could not be fetched. The site could not be reached.', reason: 'unreachable' });
  assert.is(res.headers.get('cache-control'), 'no-store');
});

test('an image past MAX_IMAGE_BYTES without Content-Length, over the limit in its first read: 502 too_large before any byte', async () => {
  const res = await get('/big-chunked.png');
  assert.is(res.status, 502);
  assert.equal(res.json, { error: 'The image could not be fetched. The image is larger than 4 KiB.', reason: 'too_large' });
});

test('FF D8 followed by no JPEG marker (HTML after a JPEG signature): 400 unsupported', async () => {
  const res = await get('/soi-then-noise.jpg');
  assert.is(res.status, 400);
  assert.equal(res.json, { error: REJECTIONS.unsupported });
});

test('a PNG 0 pixels wide and a GIF 0 pixels high, which no browser draws: 400 unsupported', async () => {
  for (const path of ['/zero-wide.png', '/zero-high.gif']) {
    const res = await get(path);
    assert.is(res.status, 400, path);
    assert.equal(res.json, { error: REJECTIONS.unsupported }, path);
  }
});

test('a small image that is whole passes whole, with its Content-Length', async () => {
  const res = await get('/fine.png');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-length'), String(png(3, 2).length));
  assert.ok(Buffer.from(res.body).equals(png(3, 2)));
});

const MiB = 1024 * 1024;

/** The exact 503 of an image refused before its first byte, told to retry in `seconds`. */
function assertRefusedBeforeFirstByte(res: { status: number; json: unknown; headers: Headers }, seconds: number): void {
  assert.is(res.status, 503);
  assert.equal(res.json, { error: `The service is busy; retry in ${seconds} seconds.` });
  assert.is(res.headers.get('retry-after'), String(seconds));
  assert.is(res.headers.get('cache-control'), 'no-store');
}

test('an image its share of the egress budget cannot send within PROXY_BODY_TIMEOUT_MS: 503 before any byte, not a cut after most of it', async () => {
  const big = await startUpstream({ routes: { '/half-mib.png': respond(200, pngOfSize(MiB / 2), { 'content-type': 'image/png' }) } });
  // Alone, it gets the whole 1 MiB/s budget: half a MiB takes about 500 ms.
  const tight = await startProxyService({ PROXY_EGRESS_BYTES_PER_SECOND: String(MiB), PROXY_BODY_TIMEOUT_MS: '200' });
  const roomy = await startProxyService({ PROXY_EGRESS_BYTES_PER_SECOND: String(MiB), PROXY_BODY_TIMEOUT_MS: '5000' });
  try {
    // About 2.5 times its deadline: Retry-After 3.
    assertRefusedBeforeFirstByte(await tight.service.request(tight.path(big.url('/half-mib.png'))), 3);
    const whole = await roomy.service.request(roomy.path(big.url('/half-mib.png')));
    assert.is(whole.status, 200);
    assert.ok(Buffer.from(whole.body).equals(pngOfSize(MiB / 2)));
  } finally {
    await Promise.all([tight.close(), roomy.close(), big.close()]);
  }
});

test('an image one chunk of which waits past PROXY_IDLE_TIMEOUT_MS for its turn: 503 before any byte (the idle deadline counts that wait)', async () => {
  const big = await startUpstream({ routes: { '/half-mib.png': respond(200, pngOfSize(MiB / 2), { 'content-type': 'image/png' }) } });
  // A 64 KiB chunk at 64 KiB/s takes a second, twice the idle deadline; the whole body would fit.
  const slow = await startProxyService({ PROXY_EGRESS_BYTES_PER_SECOND: String(64 * 1024), PROXY_IDLE_TIMEOUT_MS: '500', PROXY_BODY_TIMEOUT_MS: '60000' });
  try {
    assertRefusedBeforeFirstByte(await slow.service.request(slow.path(big.url('/half-mib.png'))), 2);
  } finally {
    await Promise.all([slow.close(), big.close()]);
  }
});

test('the share is the client’s part of the budget: an image that fits alone is refused while another client streams', async () => {
  const big = await startUpstream({ routes: { '*': respond(200, pngOfSize(4 * MiB), { 'content-type': 'image/png' }) } });
  // Alone, 4 MiB at 512 KiB/s take 8 s, within 10; shared by two clients, 16 s. The first client
  // reads nothing, but loopback socket buffers may take its whole image: it streams for about 8 s.
  const proxy = await startProxyService({ PROXY_EGRESS_BYTES_PER_SECOND: String(MiB / 2), PROXY_BODY_TIMEOUT_MS: '10000' });
  const url = (name: string) => `${proxy.service.baseUrl}${proxy.path(big.url(`/${name}.png`))}`;
  try {
    // The first client's image has started (its headers are in).
    const first = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(url('first'), { localAddress: '127.0.0.101', agent: false }, resolve).on('error', reject);
    });
    assert.is(first.statusCode, 200);
    const second = await proxy.service.request(proxy.path(big.url('/second.png')), { localAddress: '127.0.0.102' });
    first.destroy();
    // 16 s against 10: Retry-After 2.
    assertRefusedBeforeFirstByte(second, 2);
  } finally {
    await Promise.all([proxy.close(), big.close()]);
  }
});

test.run();
