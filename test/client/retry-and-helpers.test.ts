import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createClient,
  getMetadata,
  LinkPeekHttpError,
  proxiedImageUrl,
  retryAfterMs,
  withRetry,
  type GetMetadataHttpError,
  type ProxyImageHttpError,
} from '../../client/index.js';
import { retryingFetch, type RetryClock } from '../../client/retry.js';
import { startService } from '../helpers/service.js';
import { respond, startUpstream, type Route } from '../helpers/upstream.js';

// The SDK beyond the generated calls: the optional retry of 429 and 503 after Retry-After (with
// jitter, off by default), the proxied-image URL helper, and errors typed by status.

/** An upstream whose `/busy` answers `status` with Retry-After `after` for the first `times` requests, then 200. */
async function busyFor(times: number, status: number, after: string) {
  let hits = 0;
  const busy: Route = (_req, res) => {
    hits++;
    if (hits <= times) res.writeHead(status, { 'retry-after': after, 'content-type': 'application/json' }).end('{"code":429,"message":"later"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  };
  const up = await startUpstream({ routes: { '/busy': busy } });
  return { up, hits: () => hits };
}

/** A clock that waits for nothing and records what it was asked to wait. */
function recordingClock(random: number): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, wait: async (ms) => void waits.push(ms), random: () => random };
}

test('Retry-After is read as seconds or as an HTTP date; anything else is no Retry-After', () => {
  const now = Date.parse('Fri, 27 Nov 2026 22:00:00 GMT');
  assert.equal(
    ['3', ' 0 ', 'Fri, 27 Nov 2026 22:00:05 GMT', 'soon', null].map((h) => retryAfterMs(h, now)),
    [3000, 0, 5000, null, null],
  );
});

test('429 and 503 are retried after Retry-After plus jitter, up to `attempts`', async () => {
  for (const status of [429, 503]) {
    const { up, hits } = await busyFor(2, status, '1');
    const clock = recordingClock(0.5);
    try {
      const res = await retryingFetch(fetch, { attempts: 2, jitterMs: 250 }, clock)(up.url('/busy').href);
      assert.equal([res.status, hits(), clock.waits], [200, 3, [1125, 1125]], String(status));
    } finally {
      await up.close();
    }
  }
});

test('past `attempts`, or a Retry-After over maxDelayMs, the last answer is returned', async () => {
  const three = await busyFor(3, 429, '1');
  const long = await busyFor(1, 503, '30');
  try {
    const clock = recordingClock(0);
    const res = await retryingFetch(fetch, { attempts: 2 }, clock)(three.up.url('/busy').href);
    assert.equal([res.status, three.hits(), clock.waits.length], [429, 3, 2]);
    const refused = await retryingFetch(fetch, { maxDelayMs: 10_000 }, recordingClock(0))(long.up.url('/busy').href);
    assert.equal([refused.status, long.hits()], [503, 1]);
  } finally {
    await Promise.all([three.up.close(), long.up.close()]);
  }
});

test('other statuses are never retried', async () => {
  const { up, hits } = await busyFor(1, 500, '0');
  try {
    const res = await retryingFetch(fetch, {}, recordingClock(0))(up.url('/busy').href);
    assert.equal([res.status, hits()], [500, 1]);
  } finally {
    await up.close();
  }
});

test('createClient: off by default (a 429 is the answer); with retry, the call gets the answer after it', async () => {
  const plain = await busyFor(1, 429, '0');
  const retried = await busyFor(1, 429, '0');
  try {
    const first = await createClient({ baseUrl: plain.up.url('/').href }).get({ url: '/busy' });
    assert.equal([first.response?.status, plain.hits()], [429, 1]);
    const second = await createClient({ baseUrl: retried.up.url('/').href, fetch: withRetry({ jitterMs: 0 }) }).get({ url: '/busy' });
    assert.equal([second.response?.status, second.data, retried.hits()], [200, { ok: true }, 2]);
  } finally {
    await Promise.all([plain.up.close(), retried.up.close()]);
  }
});

test('proxiedImageUrl: the image proxy address for an <img>, which the service answers with the image', async () => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  const up = await startUpstream({ routes: { '/p.png': respond(200, png, { 'content-type': 'image/png' }) } });
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    assert.is(
      proxiedImageUrl('https://linkpeek.example', 'https://site.example/a b.png?x=1&y=2'),
      'https://linkpeek.example/v1/cors-proxy?url=https%3A%2F%2Fsite.example%2Fa+b.png%3Fx%3D1%26y%3D2',
    );
    assert.is(
      proxiedImageUrl('https://linkpeek.example/', 'http://i.example/p.png'),
      'https://linkpeek.example/v1/cors-proxy?url=http%3A%2F%2Fi.example%2Fp.png',
    );
    assert.throws(() => proxiedImageUrl('/relative', 'http://i.example/p.png'), /not an absolute http\(s\) URL/);
    const res = await fetch(proxiedImageUrl(svc.baseUrl, up.url('/p.png').href));
    assert.equal([res.status, res.headers.get('access-control-allow-origin'), Buffer.from(await res.arrayBuffer()).equals(png)], [200, '*', true]);
  } finally {
    await Promise.all([svc.close(), up.close()]);
  }
});

test('errors typed by status: narrowing a thrown error on `status` types its body', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const client = createClient({ baseUrl: svc.baseUrl });
    const reasons: (string | undefined)[] = [];
    for (const url of ['http://nowhere.invalid/', 'ftp://x.example/']) {
      try {
        await getMetadata({ client, query: { url }, throwOnError: true });
        assert.unreachable('an error answer is thrown');
      } catch (thrown) {
        assert.instance(thrown, LinkPeekHttpError);
        const err = thrown as GetMetadataHttpError;
        // Type-checked: a 422's body is an ApiError (reason), a 400's a ValidationError (errors).
        if (err.status === 422) reasons.push(err.body.reason);
        else if (err.status === 400) reasons.push(err.body.errors[0]?.message);
      }
    }
    assert.equal(reasons, ['name_not_resolved', 'must be an absolute http or https URL, not ftp:']);
    const proxyError: ProxyImageHttpError | null = null;
    assert.is(proxyError, null);
  } finally {
    await svc.close();
  }
});

test.run();
