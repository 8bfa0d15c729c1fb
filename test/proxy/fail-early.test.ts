// An image that will fail fails before its first byte leaves, wherever that can be known: the
// client gets an error answer it can read (and no-store), not a 200 whose connection is cut.
// Through the real app, against real upstreams.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { REJECTIONS } from '../../src/proxy/proxy.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { GIF, JPEG, png } from './images.js';
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

test.run();
