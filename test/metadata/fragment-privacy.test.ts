import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { extractionKey } from '../../src/cache/cached-metadata.js';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { testRedisUrl } from '../helpers/redis.js';
import { EXTRACTION_VERSION } from '../../src/cache/extraction-shape.js';
import { redisKeys } from '../../src/store/redis-keys.js';

// The extraction cache is keyed without the URL's fragment, so whatever an answer holds must not
// depend on it: one user's `#access_token=…` must never reach another user's answer, whether that
// answer comes from a fresh fetch, the extraction cache, the response cache's fast path or Redis.

const html = { 'content-type': 'text/html; charset=utf-8' };
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;
const SECRET = 'access_token=SECRET-4f1d';

interface Ctx {
  up: Upstream;
}
const leak = suite<Ctx>('a fragment in one request never reaches another answer');
leak.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      // No og:url, no twitter:url, no canonical link: `url` falls back to the requested URL.
      '/plain': respond(200, '<head><title>Plain</title></head>', html),
      '/doc.pdf': respond(200, '%PDF-1.4', { 'content-type': 'application/pdf' }),
    },
  });
});
leak.after(async ({ up }) => {
  await up.close();
});

async function assertTwoUsers(svc: Service, up: Upstream, path: string): Promise<void> {
  const page = up.url(path).href;
  const secretTarget = q(`${page}#${SECRET}`);
  const otherTarget = q(`${page}#section-2`);
  const before = up.hits(path);

  const first = await svc.request(secretTarget);
  assert.is(first.status, 200);
  assert.is(first.json.url, page, 'the fallback is the requested URL without its fragment');
  assert.not.ok(first.text.includes('SECRET'), 'not even the requester gets the token echoed');

  // Another user, another fragment: the same extraction, from the cache.
  const second = await svc.request(otherTarget);
  assert.is(second.json.url, page);
  assert.not.ok(second.text.includes('SECRET'));
  // Another user, no fragment at all.
  const third = await svc.request(q(page));
  assert.is(third.json.url, page);
  assert.not.ok(third.text.includes('SECRET'));
  assert.is(up.hits(path) - before, 1, 'one fetch served all three');

  // Repeats are answered by the fast path from the stored bytes: still nobody's fragment.
  for (const target of [secretTarget, otherTarget, q(page)]) {
    assert.ok(svc.app.responses.get(target), `${target} is in the response cache`);
    const again = await svc.request(target);
    assert.is(again.json.url, page);
    assert.not.ok(again.text.includes('SECRET'));
  }
}

leak('HTML page: #access_token=… is not served to later requests for the page (memory stores)', async ({ up }) => {
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  try {
    await assertTwoUsers(svc, up, '/plain');
  } finally {
    await svc.close();
  }
});

leak('a response that is not HTML: #access_token=… is not served to later requests either', async ({ up }) => {
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  try {
    await assertTwoUsers(svc, up, '/doc.pdf');
  } finally {
    await svc.close();
  }
});

leak('with Redis: the shared extraction holds no fragment, and a second instance serves none', async ({ up }) => {
  const REDIS_URL = testRedisUrl(9);
  const env = { RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', REDIS_URL };
  const page = up.url('/plain?redis').href;
  const redis = new Redis(REDIS_URL);
  const a = await startService(env);
  const b = await startService(env);
  try {
    const key = extractionKey(new URL(page));
    await redis.del(redisKeys('lp:', EXTRACTION_VERSION).extraction(key));
    const first = await a.request(q(`${page}#${SECRET}`));
    assert.is(first.json.url, page);
    const stored = await redis.get(redisKeys('lp:', EXTRACTION_VERSION).extraction(key));
    assert.ok(stored, 'the extraction is in Redis');
    assert.not.ok(stored.includes('SECRET'), 'the shared store holds no fragment');
    const other = await b.request(q(page));
    assert.is(other.json.url, page);
    assert.not.ok(other.text.includes('SECRET'));
  } finally {
    await a.close();
    await b.close();
    redis.disconnect();
  }
});

leak.run();
