import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSafeFetch, type SafeFetchService } from '../../src/fetch/fetcher.js';
import { DRAIN_BYTES, PROBE_BYTES, PROBE_RANGE, probeImage, sniffPrefix, type ProbeResult } from '../../src/images/probe.js';
import { sniffImage } from '../../src/images/sniff.js';
import { testConfig } from '../fetch/harness.js';
import { respond, stall, startUpstream, type Upstream } from '../helpers/upstream.js';
import { ICC, MAX_EXIF, SVG_UNSIZED, ico, ignoringRange, jpeg, png, ranged, xmp, type Sent } from './image-bytes.js';

// probeImage against real fixture servers through the real safeFetch: the Range it
// sends, what it reads when the server honours or ignores it, what each answer means.

const pngType = { 'content-type': 'image/png' };
const BIG_PNG = png(640, 480, 1024 * 1024); // 640×480 with 1 MiB of ancillary data after IHDR
const HUGE_PNG = png(640, 480, 32 * 1024 * 1024);
// SOF after 64 KiB of EXIF, an ICC profile and 100 KB of XMP: past PROBE_BYTES.
const JPEG_SOF_PAST_CAP = jpeg(800, 600, [MAX_EXIF, ICC, xmp(65_000), xmp(40_000)], 32 * 1024 * 1024);

interface Ctx {
  up: Upstream;
  fetcher: SafeFetchService;
  sent: Record<'honoured' | 'ignored' | 'capped' | 'exif', Sent[]>;
}
const probe = suite<Ctx>('probeImage');

probe.before(async (ctx) => {
  ctx.sent = { honoured: [], ignored: [], capped: [], exif: [] };
  ctx.up = await startUpstream({
    routes: {
      '/honoured.png': ranged(BIG_PNG, { ...pngType, 'access-control-allow-origin': '*' }, ctx.sent.honoured),
      '/ignored.png': ignoringRange(HUGE_PNG, pngType, ctx.sent.ignored),
      '/sof-past-cap.jpg': ignoringRange(JPEG_SOF_PAST_CAP, { 'content-type': 'image/jpeg' }, ctx.sent.capped),
      '/camera.jpg': ranged(jpeg(4032, 3024, [MAX_EXIF, ICC], 2 * 1024 * 1024), { 'content-type': 'image/jpeg' }, ctx.sent.exif),
      '/cors-star.png': respond(200, png(2, 3), { ...pngType, 'access-control-allow-origin': ' * ' }),
      '/cors-origin.png': respond(200, png(2, 3), { ...pngType, 'access-control-allow-origin': 'https://www.example.com' }),
      '/cors-null.png': respond(200, png(2, 3), { ...pngType, 'access-control-allow-origin': 'null' }),
      '/cors-none.png': respond(200, png(2, 3), pngType),
      '/favicon.ico': ranged(ico([32, 16]), { 'content-type': 'image/vnd.microsoft.icon' }),
      '/unsized.svg': respond(200, SVG_UNSIZED, { 'content-type': 'image/svg+xml', 'access-control-allow-origin': '*' }),
      '/missing.png': respond(404, 'not found', { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }),
      '/empty.png': ranged(Buffer.alloc(0), pngType),
      '/empty-200.png': respond(200, '', pngType),
      '/soft-404.ico': respond(200, '<!DOCTYPE html><html><head><title>Not found</title></head><body>oops</body></html>', {
        'content-type': 'text/html',
      }),
      '/html-as-icon.ico': respond(200, '\n<html><body>Page not found</body></html>', { 'content-type': 'image/x-icon' }),
      '/unavailable.png': respond(503, 'busy', { 'content-type': 'text/plain' }),
      '/wrong-range.png': respond(206, png(2, 3).subarray(0), { ...pngType, 'content-range': 'bytes 100-200/5000' }),
      '/stall.png': stall(),
      '/garbage.jpg': ignoringRange(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(32 * 1024 * 1024, 0x55)]), { 'content-type': 'image/jpeg' }),
    },
  });
  ctx.fetcher = createSafeFetch(testConfig());
});
probe.after(async (ctx) => {
  await ctx.fetcher.close();
  await ctx.up.close();
});

const run = ({ up, fetcher }: Ctx, path: string, signal?: AbortSignal): Promise<ProbeResult> =>
  probeImage(up.url(path), { safeFetch: fetcher.safeFetch, signal });
const lastRequest = (up: Upstream, path: string) => up.requests.filter((r) => r.path === path).at(-1)!;

probe('asks for the first PROBE_BYTES with Range and a browser image Accept', async (ctx) => {
  await run(ctx, '/honoured.png');
  const req = lastRequest(ctx.up, '/honoured.png');
  assert.is(PROBE_RANGE, 'bytes=0-131071');
  assert.is(req.headers['range'], PROBE_RANGE);
  assert.is(req.headers['accept'], 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8');
});

probe('Range honoured: a 206 of at most PROBE_BYTES is all the server sends', async (ctx) => {
  const result = await run(ctx, '/honoured.png');
  assert.equal(result, {
    outcome: 'image',
    type: 'image/png',
    width: 640,
    height: 480,
    corsSafe: true,
    status: 206,
    bytesRead: result.outcome === 'image' ? result.bytesRead : -1,
  });
  const sent = ctx.sent.honoured.at(-1)!;
  assert.is(sent.status, 206);
  assert.is(sent.bytes, PROBE_BYTES, 'the fixture sent the range, not the 1 MiB file');
  assert.ok(BIG_PNG.length > 8 * PROBE_BYTES);
});

probe('Range ignored: the 200 stream is closed once the bytes name the image', async (ctx) => {
  const result = await run(ctx, '/ignored.png');
  assert.is(result.outcome, 'image');
  if (result.outcome !== 'image') return;
  assert.equal([result.status, result.width, result.height], [200, 640, 480]);
  assert.ok(result.bytesRead <= PROBE_BYTES, `read ${result.bytesRead}`);
  assert.is(await lastRequest(ctx.up, '/ignored.png').outcome, 'closed early');
  const sent = ctx.sent.ignored.at(-1)!;
  assert.ok(sent.bytes < HUGE_PNG.length / 2, `the fixture got to send only ${sent.bytes} of ${HUGE_PNG.length} bytes`);
});

probe('Range ignored and the bytes never say: exactly PROBE_BYTES are read, then the stream is closed', async (ctx) => {
  const result = await run(ctx, '/sof-past-cap.jpg');
  // The server's label makes it an image of unknown size: the dimensions lie past the cap.
  assert.equal(result, { outcome: 'image', type: 'image/jpeg', width: null, height: null, corsSafe: false, status: 200, bytesRead: PROBE_BYTES });
  assert.is(await lastRequest(ctx.up, '/sof-past-cap.jpg').outcome, 'closed early');
  assert.ok(ctx.sent.capped.at(-1)!.bytes < JPEG_SOF_PAST_CAP.length);
});

probe('a JPEG header behind a maximal EXIF segment: 64 KiB misses it, PROBE_BYTES reaches it', async (ctx) => {
  const camera = jpeg(4032, 3024, [MAX_EXIF, ICC]);
  const sof = camera.indexOf(Buffer.from([0xff, 0xc0]));
  // 2 (SOI) + 65,537 (EXIF) + 3,162 (ICC) + the JFIF APP0 and quantisation table of the scan.
  assert.ok(sof > 64 * 1024, `SOF at byte ${sof}`);
  assert.is(sniffImage(camera.subarray(0, 64 * 1024)), null);
  assert.equal(sniffImage(camera.subarray(0, PROBE_BYTES)), { type: 'image/jpeg', width: 4032, height: 3024 });
  const result = await run(ctx, '/camera.jpg');
  assert.is(result.outcome, 'image');
  if (result.outcome !== 'image') return;
  assert.equal([result.type, result.width, result.height, result.status], ['image/jpeg', 4032, 3024, 206]);
  assert.ok(result.bytesRead <= PROBE_BYTES);
});

probe('a JPEG whose segment chain breaks: reading stops at once, typed by its label', async (ctx) => {
  const result = await run(ctx, '/garbage.jpg');
  assert.is(result.outcome, 'image');
  if (result.outcome !== 'image') return;
  assert.equal([result.type, result.width, result.height], ['image/jpeg', null, null]);
  assert.ok(result.bytesRead < PROBE_BYTES, `read ${result.bytesRead}`);
  assert.is(await lastRequest(ctx.up, '/garbage.jpg').outcome, 'closed early');
});

probe("sniffImage and sniffPrefix see only the bytes they are given (image-size reads past a view's end)", () => {
  const full = png(300, 200);
  const widthOnly = full.subarray(0, 20); // signature, IHDR length and type, width: no height
  assert.is(sniffImage(widthOnly), null);
  assert.is(sniffPrefix(widthOnly), null);
  assert.equal(sniffPrefix(full.subarray(0, 24)), { type: 'image/png', width: 300, height: 200 });
});

probe('cors_safe: "*" is true; a named origin, "null" and no header are false', async (ctx) => {
  const cors = async (path: string) => {
    const r = await run(ctx, path);
    return r.outcome === 'image' ? r.corsSafe : r.outcome;
  };
  assert.is(await cors('/cors-star.png'), true);
  assert.is(await cors('/cors-origin.png'), false);
  assert.is(await cors('/cors-null.png'), false);
  assert.is(await cors('/cors-none.png'), false);
});

probe('an ICO reports its first image, typed by its bytes', async (ctx) => {
  const result = await run(ctx, '/favicon.ico');
  assert.is(result.outcome, 'image');
  if (result.outcome !== 'image') return;
  assert.equal([result.type, result.width, result.height, result.corsSafe], ['image/x-icon', 32, 32, false]);
});

probe('an SVG the bytes cannot size is still an image by its label', async (ctx) => {
  const result = await run(ctx, '/unsized.svg');
  assert.equal(result, { outcome: 'image', type: 'image/svg+xml', width: null, height: null, corsSafe: true, status: 200, bytesRead: SVG_UNSIZED.length });
});

probe('answers without an image: 404, 416 (empty file), empty 200, HTML soft 404, HTML labelled as an icon', async (ctx) => {
  for (const [path, status] of [
    ['/missing.png', 404],
    ['/empty.png', 416],
    ['/empty-200.png', 200],
    ['/soft-404.ico', 200],
    ['/html-as-icon.ico', 200],
  ] as const) {
    const result = await run(ctx, path);
    assert.equal(result.outcome === 'not_image' ? [result.outcome, result.status, result.corsSafe] : result, ['not_image', status, false], path);
  }
});

probe('no usable answer: 5xx, and a 206 that does not start at byte 0', async (ctx) => {
  assert.equal(await run(ctx, '/unavailable.png'), { outcome: 'failed', reason: 'upstream status 503' });
  assert.equal(await run(ctx, '/wrong-range.png'), { outcome: 'failed', reason: 'upstream status 206' });
});

probe('over HTTP/2 (TLS): Range honoured, the stream reset once the bytes name the image', async () => {
  const sent: Sent[] = [];
  const h2 = await startUpstream({ protocol: 'h2', routes: { '/big.png': ranged(BIG_PNG, { ...pngType, 'access-control-allow-origin': '*' }, sent) } });
  const fetcher = createSafeFetch(testConfig());
  try {
    const result = await probeImage(h2.url('/big.png'), { safeFetch: fetcher.safeFetch });
    assert.is(result.outcome, 'image');
    if (result.outcome !== 'image') return;
    assert.equal([result.status, result.type, result.width, result.height, result.corsSafe], [206, 'image/png', 640, 480, true]);
    assert.is(h2.requests[0]!.httpVersion, '2.0');
    assert.is(h2.requests[0]!.headers['range'], PROBE_RANGE);
    assert.ok(sent[0]!.bytes <= PROBE_BYTES);
  } finally {
    await fetcher.close();
    await h2.close();
  }
});

probe('a small image is read to its end, so its connection is reused; a large one stops after the header', async () => {
  const up = await startUpstream({ routes: { '/small.png': ranged(png(16, 16), pngType), '/large.png': ranged(BIG_PNG, pngType) } });
  const fetcher = createSafeFetch(testConfig());
  try {
    for (let i = 0; i < 5; i++) assert.is((await probeImage(up.url('/small.png'), { safeFetch: fetcher.safeFetch })).outcome, 'image');
    // undici may open a second connection while the first is being handed back; never one per probe.
    assert.ok(up.connections <= 2, `${up.connections} connections for five probes`);
    assert.equal(await Promise.all(up.requests.map((r) => r.outcome)), Array(5).fill('finished'));
    const large = await probeImage(up.url('/large.png'), { safeFetch: fetcher.safeFetch });
    // More than DRAIN_BYTES left of the 206: not read (the fixture's kernel buffers on loopback
    // take the rest at once, so only the client side shows it).
    assert.ok(large.outcome === 'image' && large.width === 640 && large.bytesRead < PROBE_BYTES - DRAIN_BYTES, JSON.stringify(large));
  } finally {
    await fetcher.close();
    await up.close();
  }
});

probe('a refused address is a failure, never a throw', async ({ up }) => {
  const guarded = createSafeFetch(testConfig({ ALLOW_PRIVATE_NETWORKS: 'false' }));
  try {
    const dialled = up.connections;
    const result = await probeImage(up.url('/cors-star.png'), { safeFetch: guarded.safeFetch });
    assert.is(result.outcome, 'failed');
    assert.is(up.connections, dialled, 'no connection was opened');
  } finally {
    await guarded.close();
  }
});

probe('a stalled server: the budget signal ends the probe as a timeout', async (ctx) => {
  const started = performance.now();
  const result = await run(ctx, '/stall.png', AbortSignal.timeout(200));
  const elapsed = performance.now() - started;
  assert.is(result.outcome, 'timeout');
  assert.ok(elapsed >= 190 && elapsed < 500, `took ${elapsed.toFixed(0)} ms`);
});

probe.run();
