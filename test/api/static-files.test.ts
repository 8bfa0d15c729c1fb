import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Koa from 'koa';
import { imageSize } from 'image-size';
import { startService, type Service } from '../helpers/service.js';
import { compressOnce } from '../../src/content-coding.js';
import { SWAGGER_UI_FILES } from '../../src/assets/docs.js';
import { faviconIco } from '../../src/assets/favicon.js';
import { precompress, readPrecompressed } from '../../src/assets/precompressed.js';
import { COMPRESS_BEFORE_SERVING_MAX_BYTES, StaticAsset } from '../../src/assets/static-asset.js';

// Static files compressed from the first request: `npm run build` leaves the best brotli and gzip
// forms of the large files in dist/static/, so a service answers its very first request for
// each in the coding asked for. Without the build's forms for a file's bytes (an edited file, no
// build), a small file is compressed before its first answer and a large one in the background.
// And the service's icon, /favicon.ico.

const root = new URL('../../', import.meta.url);
const file = (relative: string) => readFileSync(new URL(relative, root));
/** Each large static file's path on the service and its bytes on disk. */
const LARGE_FILES: [string, Buffer][] = [
  ['/component.js', file('dist/element/component.js')],
  ['/openapi.yaml', file('openapi.yaml')],
  ['/docs/swagger-ui.css', readFileSync(SWAGGER_UI_FILES[0]!)],
  ['/docs/swagger-ui-bundle.js', readFileSync(SWAGGER_UI_FILES[1]!)],
];

const BEST_BROTLI = (bytes: Buffer) => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
  },
});

const first = suite<{ svc: Service }>('the first request after start');
first.before(async (ctx) => {
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0' });
});
first.after(({ svc }) => svc.close());

first('asking for brotli gets brotli, whose bytes decompress to the exact file', async ({ svc }) => {
  for (const [where, bytes] of LARGE_FILES) {
    const res = await svc.request(where, { headers: { 'accept-encoding': 'br' } });
    assert.is(res.status, 200, where);
    assert.is(res.headers.get('content-encoding'), 'br', `${where}: run npm run build if dist/static/ is missing`);
    assert.ok(zlib.brotliDecompressSync(res.body).equals(bytes), where);
    assert.is(res.body.length, zlib.brotliCompressSync(bytes, BEST_BROTLI(bytes)).length, `${where} at brotli's best quality`);
  }
});

first('gzip too, at level 9, with the same ETag and 304 as before', async ({ svc }) => {
  for (const [where, bytes] of LARGE_FILES) {
    const res = await svc.request(where, { headers: { 'accept-encoding': 'gzip' } });
    assert.is(res.headers.get('content-encoding'), 'gzip', where);
    assert.ok(zlib.gunzipSync(res.body).equals(bytes), where);
    assert.ok(Buffer.from(res.body).equals(zlib.gzipSync(bytes, { level: 9 })), `${where} at gzip level 9`);
    const etag = res.headers.get('etag')!;
    const again = await svc.request(where, { headers: { 'accept-encoding': 'br', 'if-none-match': etag } });
    assert.is(again.status, 304, where);
    assert.is(again.headers.get('etag'), etag);
  }
});
first.run();

const icon = suite<{ svc: Service }>('/favicon.ico');
icon.before(async (ctx) => {
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0' });
});
icon.after(({ svc }) => svc.close());

icon("answers a 32×32 icon with the static files' caching headers, compressed when asked", async ({ svc }) => {
  const res = await svc.request('/favicon.ico', { headers: { 'accept-encoding': 'gzip' } });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/x-icon');
  assert.is(res.headers.get('cache-control'), 'public, max-age=3600');
  assert.is(res.headers.get('content-encoding'), 'gzip');
  const bytes = zlib.gunzipSync(res.body);
  assert.ok(bytes.equals(faviconIco()));
  assert.equal(imageSize(new Uint8Array(bytes)), { type: 'ico', width: 32, height: 32 });
  const again = await svc.request('/favicon.ico', { headers: { 'if-none-match': res.headers.get('etag')! } });
  assert.is(again.status, 304);
});

icon('its corners are transparent and its middle the accent colour (32-bit pixels, bottom row first)', () => {
  const ico = faviconIco();
  const pixels = 6 + 16 + 40;
  const at = (x: number, y: number) => [...ico.subarray(pixels + ((31 - y) * 32 + x) * 4, pixels + ((31 - y) * 32 + x) * 4 + 4)];
  assert.equal(at(0, 0), [0xca, 0x58, 0x0a, 0], 'top-left corner: transparent');
  assert.equal(at(31, 31)[3], 0, 'bottom-right corner: transparent');
  assert.equal(at(16, 3), [0xca, 0x58, 0x0a, 255], 'the card: #0a58ca, opaque');
  assert.equal(at(16, 10), [255, 255, 255, 255], 'the image block: white');
});
icon.run();

/** GET `url` asking for brotli: the coding, the ETag and the decoded text, nothing decoded behind the test's back. */
function getBrotli(url: string): Promise<{ coding: string | null; etag: string | null; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': 'br' }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const coding = res.headers['content-encoding'] ?? null;
          const body = Buffer.concat(chunks);
          resolve({ coding, etag: res.headers.etag ?? null, text: (coding === 'br' ? zlib.brotliDecompressSync(body) : body).toString() });
        });
      })
      .on('error', reject);
  });
}

/** A Koa app on loopback that answers every request with `asset`. */
async function serve(asset: StaticAsset): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => asset.send(ctx));
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const headers = { type: 'text/plain; charset=utf-8', cacheControl: 'public, max-age=3600' };
/** Text of `size` bytes that compresses (words, not noise), different for each `seed`. */
const text = (size: number, seed: string) => Buffer.from(`${seed} `.padEnd(size, 'lorem ipsum dolor sit amet '));

interface Dirs {
  build: string;
  empty: string;
}
const forms = suite<Dirs>('forms from the build, and without them');
forms.before((ctx) => {
  ctx.build = mkdtempSync(path.join(tmpdir(), 'linkpeek-static-'));
  ctx.empty = mkdtempSync(path.join(tmpdir(), 'linkpeek-static-'));
});
forms.after(({ build, empty }) => {
  rmSync(build, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

forms("the build keeps each file's forms under its digest: found for those bytes, never for others", async ({ build }) => {
  const source = path.join(build, 'source.txt');
  const bytes = text(5000, 'built');
  writeFileSync(source, bytes);
  await precompress([source], path.join(build, 'static'));
  const found = await readPrecompressed(bytes, path.join(build, 'static'));
  assert.ok(found?.br && zlib.brotliDecompressSync(found.br).equals(bytes));
  assert.ok(found?.gzip && zlib.gunzipSync(found.gzip).equals(bytes));
  assert.is(await readPrecompressed(text(5000, 'edited'), path.join(build, 'static')), null, 'an edited file has no forms');
});

forms('a small file without forms is compressed before its first answer', async ({ empty }) => {
  const bytes = text(COMPRESS_BEFORE_SERVING_MAX_BYTES, 'small');
  const server = await serve(await StaticAsset.load(bytes, headers, { precompressedDir: empty }));
  try {
    const res = await getBrotli(server.url);
    assert.is(res.coding, 'br');
    assert.is(res.text, bytes.toString());
  } finally {
    await server.close();
  }
});

forms('a large file without forms is answered as it is until they are made in the background', async ({ empty }) => {
  const bytes = text(COMPRESS_BEFORE_SERVING_MAX_BYTES + 1, 'large');
  // The real compression, held back until the first answer is in: its speed plays no part.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const asset = await StaticAsset.load(bytes, headers, { precompressedDir: empty, compress: async (body) => (await held, compressOnce(body)) });
  const server = await serve(asset);
  try {
    const before = await getBrotli(server.url);
    assert.is(before.coding, null);
    assert.is(before.text, bytes.toString());
    release();
    await asset.compressed;
    const after = await getBrotli(server.url);
    assert.is(after.coding, 'br');
    assert.is(after.text, bytes.toString());
    assert.is(after.etag, before.etag);
  } finally {
    await server.close();
  }
});
forms.run();
