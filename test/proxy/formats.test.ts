// What the proxy lets through (docs/SPEC.md rule 1): JPEG, PNG, GIF and WebP, decided by the
// bytes; the upstream label must be image/*; every refusal is a 400 {error} with no-store.
// Through the real app: routing, error boundary, CORS and the openapi.yaml contract check.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REJECTIONS } from '../../src/proxy/proxy.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { AVIF, BMP, GIF, GIF_JS_POLYGLOT, HTML, ICO, JPEG, PNG_HTML_POLYGLOT, SVG_WITH_SCRIPT, TIFF, WEBP, png } from './images.js';
import { startProxyService, type ProxyService } from './harness.js';

const test = suite('image proxy formats');
const PNG = png(3, 2);

let up: Upstream;
let proxy: ProxyService;
test.before(async () => {
  up = await startUpstream({
    routes: {
      '/a.png': respond(200, PNG, {
        'content-type': 'image/png',
        etag: '"v1"',
        'last-modified': 'Sun, 01 Nov 2026 10:00:00 GMT',
        'set-cookie': 'track=1',
        'access-control-allow-origin': 'https://evil.example',
        'cache-control': 'private, max-age=5',
        'x-secret': 'internal',
      }),
      '/a.jpg': respond(200, JPEG, { 'content-type': 'image/jpeg' }),
      '/a.gif': respond(200, GIF, { 'content-type': 'image/gif' }),
      '/a.webp': respond(200, WEBP, { 'content-type': 'image/webp' }),
      '/jpg-spelled-jpg': respond(200, JPEG, { 'content-type': 'image/jpg' }),
      '/png-labelled-jpeg': respond(200, PNG, { 'content-type': 'image/jpeg' }),
      '/png-with-params': respond(200, PNG, { 'content-type': 'IMAGE/PNG; charset=binary' }),
      '/html-as-png': respond(200, HTML, { 'content-type': 'image/png' }),
      '/png-as-html': respond(200, PNG, { 'content-type': 'text/html' }),
      '/png-no-type': respond(200, PNG),
      '/smuggled-type': respond(200, PNG, { 'content-type': 'image/png, text/html' }),
      '/two-types': (_req, res) => {
        // Two Content-Type fields: undici joins them, the proxy refuses the pair.
        (res as import('node:http').ServerResponse).setHeader('content-type', ['image/png', 'text/html']);
        res.end(PNG);
      },
      '/svg-script': respond(200, SVG_WITH_SCRIPT, { 'content-type': 'image/svg+xml' }),
      '/svg-as-png': respond(200, SVG_WITH_SCRIPT, { 'content-type': 'image/png' }),
      '/a.bmp': respond(200, BMP, { 'content-type': 'image/bmp' }),
      '/a.tiff': respond(200, TIFF, { 'content-type': 'image/tiff' }),
      '/a.avif': respond(200, AVIF, { 'content-type': 'image/avif' }),
      '/a.ico': respond(200, ICO, { 'content-type': 'image/x-icon' }),
      '/empty': respond(200, '', { 'content-type': 'image/png' }),
      '/empty-chunked': respond(200, '', { 'content-type': 'image/png' }, { chunked: true }),
      '/gif-js-polyglot': respond(200, GIF_JS_POLYGLOT, { 'content-type': 'image/gif' }),
      '/gif-js-polyglot-as-js': respond(200, GIF_JS_POLYGLOT, { 'content-type': 'application/javascript' }),
      '/png-html-polyglot': respond(200, PNG_HTML_POLYGLOT, { 'content-type': 'image/png' }),
      '/not-found': respond(404, PNG, { 'content-type': 'image/png' }),
      '/server-error': respond(500, 'oops', { 'content-type': 'text/plain' }),
      '/moved': respond(301, '', { location: '/a.png' }),
    },
  });
  proxy = await startProxyService();
});
test.after(async () => {
  await proxy.close();
  await up.close();
});

const get = (path: string) => proxy.service.request(proxy.path(up.url(path)));

const SAFE_HEADERS = {
  'access-control-allow-origin': '*',
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
};

function assertSafeHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(SAFE_HEADERS)) assert.is(headers.get(name), value, name);
}

async function assertRejected(path: string, message: string): Promise<void> {
  const res = await get(path);
  assert.is(res.status, 400, path);
  assert.equal(res.json, { error: message });
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is(res.headers.get('access-control-allow-origin'), '*');
}

for (const [path, type, bytes] of [
  ['/a.png', 'image/png', PNG],
  ['/a.jpg', 'image/jpeg', JPEG],
  ['/a.gif', 'image/gif', GIF],
  ['/a.webp', 'image/webp', WEBP],
] as const) {
  test(`${type} passes byte for byte with the safe headers and its Content-Length`, async () => {
    const res = await get(path);
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), type);
    assert.is(res.headers.get('content-length'), String(bytes.length));
    assertSafeHeaders(res.headers);
    assert.ok(Buffer.from(res.body).equals(bytes));
  });
}

test('upstream headers pass only from the allow-list: ETag and Last-Modified yes; cookies, CORS, caching, others no', async () => {
  const res = await get('/a.png');
  assert.is(res.headers.get('etag'), '"v1"');
  assert.is(res.headers.get('last-modified'), 'Sun, 01 Nov 2026 10:00:00 GMT');
  assert.is(res.headers.get('set-cookie'), null);
  assert.is(res.headers.get('x-secret'), null);
  assert.is(res.headers.get('access-control-allow-origin'), '*');
  assert.is(res.headers.get('cache-control'), 'public, max-age=86400');
});

test('the bytes decide the type: a PNG labelled image/jpeg is sent as image/png', async () => {
  const res = await get('/png-labelled-jpeg');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
});

test('a label that agrees is sent in canonical form (image/jpg → image/jpeg, parameters dropped)', async () => {
  assert.is((await get('/jpg-spelled-jpg')).headers.get('content-type'), 'image/jpeg');
  assert.is((await get('/png-with-params')).headers.get('content-type'), 'image/png');
});

test('a redirect to an image is followed', async () => {
  const res = await get('/moved');
  assert.is(res.status, 200);
  assert.ok(Buffer.from(res.body).equals(PNG));
});

test('HTML served as image/png is refused', async () => {
  await assertRejected('/html-as-png', REJECTIONS.unsupported);
});

test('a PNG labelled text/html is refused (the label must be image/*)', async () => {
  await assertRejected('/png-as-html', REJECTIONS.notAnImage);
});

test('a PNG without Content-Type is refused', async () => {
  await assertRejected('/png-no-type', REJECTIONS.notAnImage);
});

test('Content-Type smuggling "image/png, text/html" is refused', async () => {
  await assertRejected('/smuggled-type', REJECTIONS.notAnImage);
});

test('two Content-Type fields (image/png and text/html) are refused', async () => {
  await assertRejected('/two-types', REJECTIONS.notAnImage);
});

test('an SVG with script is refused, as image/svg+xml and as image/png', async () => {
  await assertRejected('/svg-script', REJECTIONS.unsupported);
  await assertRejected('/svg-as-png', REJECTIONS.unsupported);
});

for (const path of ['/a.bmp', '/a.tiff', '/a.avif', '/a.ico']) {
  test(`${path.slice(3).toUpperCase()} is refused (not in the contract)`, async () => {
    await assertRejected(path, REJECTIONS.unsupported);
  });
}

test('an empty 200 is refused, with and without Content-Length', async () => {
  await assertRejected('/empty', REJECTIONS.empty);
  await assertRejected('/empty-chunked', REJECTIONS.empty);
});

test('a GIF/JavaScript polyglot passes only as image/gif, with nosniff and a sandboxing CSP', async () => {
  const res = await get('/gif-js-polyglot');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/gif');
  assertSafeHeaders(res.headers);
  await assertRejected('/gif-js-polyglot-as-js', REJECTIONS.notAnImage);
});

test('a PNG/HTML polyglot passes only as image/png, with nosniff and a sandboxing CSP', async () => {
  const res = await get('/png-html-polyglot');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assertSafeHeaders(res.headers);
});

test('upstream 4xx and 5xx are 502 {error, reason: http_status} naming the status, with no-store', async () => {
  for (const [path, status] of [
    ['/not-found', 404],
    ['/server-error', 500],
  ] as const) {
    const res = await get(path);
    assert.is(res.status, 502, path);
    assert.equal(res.json, { error: `The image could not be fetched. The site answered ${status}.`, reason: 'http_status' });
    assert.is(res.headers.get('cache-control'), 'no-store');
  }
});

test.run();
