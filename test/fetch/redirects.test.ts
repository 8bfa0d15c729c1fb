// Redirects are followed by hand: every hop is checked like the first URL, at most
// MAX_REDIRECTS (5) are followed, a relative Location is resolved, a 30x without Location fails.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FetchFailed } from '../../src/errors.js';
import { isPublicAddress } from '../../src/fetch/address.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { redirect, respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { loopbackLookup, readAll, rejection, scriptedLookup, testConfig, lookupResolver } from './harness.js';

const test = suite('safeFetch redirects');

let up: Upstream;
test.before(async () => {
  up = await startUpstream({
    routes: {
      '/final': respond(200, 'final'),
      '/relative': redirect(302, '../final?from=relative'),
      '/absolute': redirect(301, '/final'),
      '/see-other': redirect(303, 'final'),
      '/temporary': redirect(307, '/final'),
      '/permanent': redirect(308, '/final'),
      '/no-location': redirect(302, undefined),
      '/loop-a': redirect(302, '/loop-b'),
      '/loop-b': redirect(302, '/loop-a'),
      '/self': redirect(302, '/self#again'),
      '/bad-location': redirect(302, 'http://[::1'),
      '/to-ftp': redirect(302, 'ftp://example.com/file'),
      '/not-modified': respond(304, ''),
      '/multiple-choices': respond(300, 'choose', { location: '/final' }),
      ...chain(6),
    },
  });
});
test.after(async () => {
  await up.close();
});

/** /hop0 → /hop1 → … → /hop{n-1} → /final: n redirects. */
function chain(n: number) {
  const routes: Record<string, ReturnType<typeof redirect>> = {};
  for (let i = 0; i < n; i++) routes[`/hop${i}`] = redirect(302, i === n - 1 ? '/final' : `/hop${i + 1}`);
  return routes;
}

async function fetchText(path: string, env: Record<string, string> = {}) {
  const { safeFetch, close } = createSafeFetch(testConfig(env));
  try {
    const res = await safeFetch(up.url(path), { maxBytes: 1024 });
    return { status: res.status, url: res.url.href, text: (await readAll(res.body)).toString() };
  } finally {
    await close();
  }
}

async function fetchError(path: string, env: Record<string, string> = {}, lookup = loopbackLookup([])) {
  const { safeFetch, close } = createSafeFetch(testConfig(env), { resolver: lookupResolver(lookup) });
  try {
    const err = await rejection(safeFetch(up.url(path), { maxBytes: 1024 }));
    assert.instance(err, FetchFailed);
    // What the caller is told, then the detail for the log.
    const { failure, reason } = err as FetchFailed;
    assert.is(err.message, failure.message);
    return `${failure.reason} | ${reason}`;
  } finally {
    await close();
  }
}

for (const [path, status] of [
  ['/absolute', 301],
  ['/relative', 302],
  ['/see-other', 303],
  ['/temporary', 307],
  ['/permanent', 308],
] as const) {
  test(`a ${status} is followed to its target`, async () => {
    const res = await fetchText(path);
    assert.is(res.status, 200);
    assert.is(res.text, 'final');
    assert.ok(res.url.startsWith(`${up.origin}/final`));
  });
}

test('a relative Location is resolved against the URL that answered', async () => {
  const res = await fetchText('/relative');
  assert.is(res.url, `${up.origin}/final?from=relative`);
});

test('a 30x without Location is a failure', async () => {
  assert.is(await fetchError('/no-location'), 'bad_redirect | 302 without Location');
});

test('a Location that is not a URL is a failure', async () => {
  assert.is(await fetchError('/bad-location'), 'bad_redirect | 302 with an invalid Location');
});

test('a redirect loop is a failure, caught at the first repeat', async () => {
  const before = up.hits('/loop-a');
  assert.is(await fetchError('/loop-a'), `redirect_loop | redirect loop at ${up.origin}/loop-a`);
  assert.is(up.hits('/loop-a') - before, 1);
});

test('a redirect to itself (fragment aside) is a loop', async () => {
  assert.is(await fetchError('/self'), `redirect_loop | redirect loop at ${up.origin}/self#again`);
});

test('five redirects are followed', async () => {
  // /hop1 … /hop5 → /final is five redirects.
  const res = await fetchText('/hop1');
  assert.is(res.text, 'final');
});

test('too many redirects: the sixth is refused and its target never fetched', async () => {
  const before = up.hits('/final');
  const hop5 = up.hits('/hop5');
  assert.is(await fetchError('/hop0'), 'too_many_redirects | more than 5 redirects');
  assert.is(up.hits('/hop5') - hop5, 1, 'the sixth redirect was read, not followed');
  assert.is(up.hits('/final') - before, 0);
});

test('MAX_REDIRECTS=0 refuses the first redirect', async () => {
  assert.is(await fetchError('/absolute', { MAX_REDIRECTS: '0' }), 'too_many_redirects | more than 0 redirects');
});

test('a redirect to a non-http scheme is refused', async () => {
  assert.match(await fetchError('/to-ftp'), /^bad_redirect \| redirect target refused: must be an absolute http or https URL/);
});

test('300 and 304 are answers, not redirects', async () => {
  assert.is((await fetchText('/multiple-choices')).status, 300);
  assert.is((await fetchText('/not-modified')).status, 304);
});

// Redirects into private space. The guard is on; only the redirecting fixture at 127.0.0.1 is
// trusted (the isPublicAddress test seam), so every hop it sends elsewhere meets the real policy.
// The "private" target listens on 127.0.0.2 and must see no connection at all.
test('a redirect to a private address is refused, by literal, by name and by disguise', async () => {
  const inner = await startUpstream({ host: '127.0.0.2', routes: { '*': respond(200, 'inner secret') } });
  const p = inner.port;
  const hop = await startUpstream({
    routes: {
      '/to-literal': redirect(302, `http://127.0.0.2:${p}/`),
      '/to-mapped': redirect(302, `http://[::ffff:127.0.0.2]:${p}/`),
      '/to-decimal': redirect(302, `http://2130706434:${p}/`),
      '/to-name': redirect(302, `http://intranet.test:${p}/`),
      '/to-localhost': redirect(302, `http://localhost:${p}/`),
      '/to-private-after-one': redirect(302, '/to-literal'),
    },
  });
  const warnings: Array<Record<string, unknown>> = [];
  const { safeFetch, close } = createSafeFetch(testConfig({ ALLOW_PRIVATE_NETWORKS: 'false' }), {
    isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
    resolver: lookupResolver(scriptedLookup((h) => (h === 'intranet.test' || h === 'localhost' ? ['127.0.0.2'] : null))),
    logger: { warn: (obj, msg) => warnings.push({ msg, ...obj }) },
  });
  const expectations: Array<[string, RegExp]> = [
    ['/to-literal', /^redirect target refused: must not point to a private/],
    ['/to-mapped', /^redirect target refused: must not point to a private/],
    ['/to-decimal', /^redirect target refused: must not point to a private/],
    ['/to-name', /^blocked address: intranet\.test → 127\.0\.0\.2/],
    ['/to-localhost', /^redirect target refused: must not point to localhost;/],
    ['/to-private-after-one', /^redirect target refused: must not point to a private/],
  ];
  try {
    for (const [path, reason] of expectations) {
      const err = await rejection(safeFetch(hop.url(path), { maxBytes: 1024 }));
      assert.instance(err, FetchFailed, path);
      // A private hop reads like any unreachable site.
      assert.equal((err as FetchFailed).failure, { reason: 'unreachable', message: 'The site could not be reached.' }, path);
      assert.match((err as FetchFailed).reason, reason, path);
      assert.is(hop.hits(path), 1, `${path} itself was fetched`);
    }
    assert.is(inner.connections, 0, 'the private fixture was never dialled');
    // Every refusal is logged for the operator (possible SSRF probing), at the URL check or at connect.
    assert.equal(
      warnings.map((w) => w.msg),
      [
        'upstream target refused',
        'upstream target refused',
        'upstream target refused',
        'upstream address refused',
        'upstream target refused',
        'upstream target refused',
      ],
    );
    assert.equal(warnings[3], {
      msg: 'upstream address refused',
      url: hop.url('/to-name').href,
      hostname: 'intranet.test',
      address: '127.0.0.2',
      why: '127.0.0.0/8: loopback (RFC 1122)',
    });
  } finally {
    await close();
    await hop.close();
    await inner.close();
  }
});

test.run();
