// HTTP/1.1, HTTPS and HTTP/2 upstreams all work, with the test certificate trusted through
// UPSTREAM_CA_FILE (verification stays on: without the CA the same fetch fails).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FetchFailed } from '../../src/errors.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { respond, startUpstream, TEST_CA_FILE, type UpstreamProtocol } from '../helpers/upstream.js';
import { loopbackLookup, readAll, rejection, testConfig, lookupResolver } from './harness.js';

const test = suite('safeFetch protocols');

const cases: Array<[UpstreamProtocol, string]> = [
  ['http', '1.1'],
  ['https', '1.1'],
  ['h2', '2.0'],
];

for (const [protocol, version] of cases) {
  test(`${protocol} upstream answers over HTTP/${version}`, async () => {
    const up = await startUpstream({
      protocol,
      routes: { '/page': respond(200, 'hello', { 'content-type': 'text/html', 'x-two': ['a', 'b'] }) },
    });
    const { safeFetch, close } = createSafeFetch(testConfig());
    try {
      const res = await safeFetch(up.url('/page?q=1'), { maxBytes: 1024 });
      assert.is(res.status, 200);
      assert.is(res.url.href, up.url('/page?q=1').href);
      assert.is(res.headers['content-type'], 'text/html');
      assert.is(res.headers['x-two'], 'a, b');
      assert.is((await readAll(res.body)).toString(), 'hello');
      assert.is(res.bytesRead, 5);
      assert.is(res.truncated, false);
      assert.is(up.requests[0]!.httpVersion, version);
      assert.is(up.requests[0]!.path, '/page?q=1');
    } finally {
      await close();
      await up.close();
    }
  });
}

test('https by host name localhost (certificate name check) through an injected resolver', async () => {
  const up = await startUpstream({ protocol: 'https', routes: { '/': respond(200, 'ok') } });
  const { safeFetch, close } = createSafeFetch(testConfig(), { resolver: lookupResolver(loopbackLookup(['localhost'])) });
  try {
    const res = await safeFetch(up.url('/', 'localhost'), { maxBytes: 1024 });
    assert.is((await readAll(res.body)).toString(), 'ok');
  } finally {
    await close();
    await up.close();
  }
});

for (const protocol of ['https', 'h2'] as const) {
  test(`${protocol}: an untrusted certificate is a FetchFailed (verification is on)`, async () => {
    const up = await startUpstream({ protocol, routes: { '/': respond(200, 'ok') } });
    const { safeFetch, close } = createSafeFetch(testConfig({ UPSTREAM_CA_FILE: '' }));
    try {
      const err = await rejection(safeFetch(up.url('/'), { maxBytes: 1024 }));
      assert.instance(err, FetchFailed);
      assert.equal((err as FetchFailed).failure, { reason: 'tls_certificate', message: "The site's TLS certificate is not valid." });
      assert.match((err as FetchFailed).reason, /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
      assert.is(up.hits('/'), 0);
    } finally {
      await close();
      await up.close();
    }
  });
}

test('upstream 404 and 500 are answers, not errors, at this layer (callers decide)', async () => {
  const up = await startUpstream({ routes: { '/gone': respond(404, 'gone'), '/broken': respond(500, 'broken') } });
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const gone = await safeFetch(up.url('/gone'), { maxBytes: 1024 });
    assert.is(gone.status, 404);
    assert.is((await readAll(gone.body)).toString(), 'gone');
    const broken = await safeFetch(up.url('/broken'), { maxBytes: 1024 });
    assert.is(broken.status, 500);
    broken.close();
  } finally {
    await close();
    await up.close();
  }
});

test('NODE_EXTRA_CA_CERTS is honoured when UPSTREAM_CA_FILE is unset', async () => {
  const child = fileURLToPath(new URL('./extra-ca-child.ts', import.meta.url));
  const run = (env: Record<string, string>) =>
    new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', child], { env: { ...process.env, ...env } }, (err, stdout) =>
        err ? reject(err) : resolve(stdout.trim()),
      );
    });
  assert.is(await run({ NODE_EXTRA_CA_CERTS: TEST_CA_FILE }), '200 trusted');
  assert.match(
    await run({ NODE_EXTRA_CA_CERTS: '' }),
    /^failed: request: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/,
  );
});

test.run();
