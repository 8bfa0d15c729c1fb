// gzip, deflate and br are decoded and the cap counts decoded bytes: a small gzip
// bomb costs no more than the cap. The work is measured, not assumed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import { FetchFailed } from '../../src/errors.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { respond, startUpstream, type Upstream, type UpstreamProtocol } from '../helpers/upstream.js';
import { readAll, rejection, testConfig } from './harness.js';

const test = suite('safeFetch content decoding');
const MiB = 1024 * 1024;
const page = Buffer.from('<!doctype html><title>décodé</title>'.repeat(2000));

// 1 GiB of zeros as 64 concatenated gzip members of 16 MiB each (RFC 1952 2.2: a gzip file is a
// series of members; zlib's gunzip reads them all). About 1 MB on the wire.
const member = zlib.gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
const BOMB_MEMBERS = 64;
const bomb = Buffer.concat(Array.from({ length: BOMB_MEMBERS }, () => member));

let up: Upstream;
test.before(async () => {
  up = await startUpstream({
    routes: {
      '/gzip': respond(200, zlib.gzipSync(page), { 'content-encoding': 'gzip' }),
      '/x-gzip': respond(200, zlib.gzipSync(page), { 'content-encoding': 'x-gzip' }),
      '/br': respond(200, zlib.brotliCompressSync(page), { 'content-encoding': 'br' }),
      '/deflate': respond(200, zlib.deflateSync(page), { 'content-encoding': 'deflate' }),
      '/raw-deflate': respond(200, zlib.deflateRawSync(page), { 'content-encoding': 'deflate' }),
      '/stacked': respond(200, zlib.brotliCompressSync(zlib.gzipSync(page)), { 'content-encoding': 'gzip, br' }),
      '/identity': respond(200, page, { 'content-encoding': 'identity' }),
      '/bomb': respond(200, bomb, { 'content-encoding': 'gzip', 'content-type': 'text/html' }),
      '/corrupt': respond(200, Buffer.concat([zlib.gzipSync(page).subarray(0, 20), Buffer.alloc(100, 0xff)]), { 'content-encoding': 'gzip' }),
      '/compress': respond(200, 'xx', { 'content-encoding': 'compress' }),
      '/triple': respond(200, 'xx', { 'content-encoding': 'gzip, gzip, gzip' }),
    },
  });
});
test.after(async () => {
  await up.close();
});

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

async function fetchBody(path: string, maxBytes = 4 * MiB) {
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const res = await safeFetch(up.url(path), { maxBytes });
    const body = await readAll(res.body);
    return { res, body };
  } finally {
    await close();
  }
}

for (const path of ['/gzip', '/x-gzip', '/br', '/deflate', '/raw-deflate', '/stacked', '/identity']) {
  test(`${path.slice(1)} is decoded`, async () => {
    const { res, body } = await fetchBody(path);
    assert.ok(body.equals(page));
    assert.is(res.bytesRead, page.length, 'bytesRead counts decoded bytes');
  });
}

for (const protocol of ['https', 'h2'] as UpstreamProtocol[]) {
  test(`brotli over ${protocol} is decoded`, async () => {
    const tls = await startUpstream({ protocol, routes: { '/br': respond(200, zlib.brotliCompressSync(page), { 'content-encoding': 'br' }) } });
    const { safeFetch, close } = createSafeFetch(testConfig());
    try {
      const res = await safeFetch(tls.url('/br'), { maxBytes: MiB });
      assert.ok((await readAll(res.body)).equals(page));
    } finally {
      await close();
      await tls.close();
    }
  });
}

test('the cap counts decoded bytes: a compressed page larger than the cap decoded is truncated', async () => {
  const { res, body } = await fetchBody('/gzip', 1000);
  assert.is(body.length, 1000);
  assert.ok(body.equals(page.subarray(0, 1000)));
  assert.is(res.truncated, true);
});

test('gzip bomb (1 MB → 1 GiB) costs no more than the cap: measured', async () => {
  assert.ok(bomb.length < 1.2 * MiB, `bomb is ${bomb.length} bytes`);
  const cap = 2 * MiB;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { res, body } = await fetchBody('/bomb', cap);
  const elapsed = performance.now() - started;
  const fetchCpu = process.cpuUsage(cpu);
  assert.is(body.length, cap);
  assert.is(res.truncated, true);

  // What decoding the whole bomb costs, for comparison: one member (1/64th) decoded in full.
  const oneMember = process.cpuUsage();
  zlib.gunzipSync(member);
  const fullBombCpuMs = cpuMs(process.cpuUsage(oneMember)) * BOMB_MEMBERS;
  const fetchCpuMs = cpuMs(fetchCpu);
  console.log(
    `    gzip bomb: fetch with a 2 MiB cap ${elapsed.toFixed(1)} ms wall, ${fetchCpuMs.toFixed(1)} ms CPU; ` +
      `decoding all 1 GiB ≈ ${fullBombCpuMs.toFixed(0)} ms CPU`,
  );
  // 2 MiB is 1/512 of the bomb; a wide margin for HTTP and test overhead. CPU against CPU, both
  // in this process: what the fetch decoded, not how long a busy machine kept it waiting (on
  // Node 24 in CI, 213.6 ms of wall clock against a bound of 148).
  assert.ok(fetchCpuMs < fullBombCpuMs / 10, `the fetch took ${fetchCpuMs} ms of CPU, a full decode ≈ ${fullBombCpuMs} ms`);
});

test('corrupt gzip is a FetchFailed while reading the body', async () => {
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const res = await safeFetch(up.url('/corrupt'), { maxBytes: MiB });
    const err = await rejection(readAll(res.body));
    assert.instance(err, FetchFailed);
    assert.match((err as FetchFailed).reason, /^body: corrupt content-encoding \(Z_/);
  } finally {
    await close();
  }
});

test('an encoding we did not offer (compress) is a FetchFailed', async () => {
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const err = await rejection(safeFetch(up.url('/compress'), { maxBytes: MiB }));
    assert.instance(err, FetchFailed);
    assert.is((err as FetchFailed).reason, 'unsupported content-encoding');
    const triple = await rejection(safeFetch(up.url('/triple'), { maxBytes: MiB }));
    assert.is((triple as FetchFailed).reason, 'unsupported content-encoding');
  } finally {
    await close();
  }
});

test.run();
