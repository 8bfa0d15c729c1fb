import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { loopbackLookup, lookupResolver } from '../fetch/harness.js';
import type { Enricher } from '../../src/metadata/enrichment.js';
import { startService, type Service } from '../helpers/service.js';
import { TEST_CA_FILE, respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { testRedisUrl } from '../helpers/redis.js';
import { cacheOutcomes } from '../helpers/cache-outcomes.js';
import { gate, until } from '../helpers/until.js';

// GET /v1/metadata end to end: the real app, the real fetcher, real
// upstream servers on loopback; every response checked against openapi.yaml by the helper.

const ARTICLE = `<!doctype html><html lang="en"><head>
<title>Plain title</title>
<meta property="og:title" content="OG title">
<meta name="twitter:title" content="Twitter title">
<meta property="og:description" content="OG description">
<meta name="twitter:description" content="Twitter description">
<meta property="og:url" content="/canonical-og">
<meta name="twitter:url" content="https://example.org/tw">
<meta property="og:image" content="/img/og.png">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:type" content="image/png">
<meta name="twitter:image" content="https://cdn.example.org/tw.jpg">
<meta property="og:type" content="article">
<meta name="twitter:card" content="summary_large_image">
<link rel="icon" href="/favicon-32.png" sizes="32x32" type="image/png">
<link rel="apple-touch-icon" href="/apple.png" sizes="180x180">
</head><body><meta property="og:title" content="in the body"></body></html>`;

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const html = { 'content-type': 'text/html; charset=utf-8' };
/** Holds /slow-single until every concurrent request has joined its fetch. */
const singleHeld = gate();
const q = (url: string, extra: Record<string, string> = {}) => `/v1/metadata?${new URLSearchParams({ url, ...extra })}`;

interface Ctx {
  up: Upstream;
  svc: Service;
}
const endpoint = suite<Ctx>('GET /v1/metadata');
endpoint.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/article': respond(200, ARTICLE, html),
      '/moved': respond(301, '', { location: '/claims-a-bank' }),
      '/claims-a-bank': respond(200, '<title>Sign in</title><meta property="og:url" content="http://bank.test/login">', html),
      '/shared': respond(200, ARTICLE, html),
      '/image.png': respond(200, PNG, { 'content-type': 'image/png' }),
      '/doc.pdf': respond(200, '%PDF-1.4 ...', { 'content-type': 'application/pdf' }),
      '/gone': respond(404, 'nope', html),
      '/broken': respond(500, 'oops', html),
      '/empty': respond(200, '', html),
      '/slow-single': async (_req, res) => {
        await singleHeld.promise;
        res.writeHead(200, html);
        res.end('<title>Once</title>');
      },
    },
  });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
});
endpoint.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

endpoint('an HTML page gives the exact normalized object, cacheable for 12 hours', async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/article').href));
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'public, max-age=43200');
  const origin = up.origin;
  assert.equal(res.json, {
    title: 'OG title',
    description: 'OG description',
    url: `${origin}/canonical-og`,
    image: { url: `${origin}/img/og.png`, type: 'image/png', width: 1200, height: 630, size: null },
    type: 'article',
    favicon: { url: `${origin}/apple.png`, type: null, width: 180, height: 180, size: null },
    og: {
      'og:title': 'OG title',
      'og:description': 'OG description',
      'og:url': '/canonical-og',
      'og:image': '/img/og.png',
      'og:image:width': '1200',
      'og:image:height': '630',
      'og:image:type': 'image/png',
      'og:type': 'article',
    },
    twitter: {
      'twitter:title': 'Twitter title',
      'twitter:description': 'Twitter description',
      'twitter:url': 'https://example.org/tw',
      'twitter:image': 'https://cdn.example.org/tw.jpg',
      'twitter:card': 'summary_large_image',
    },
    // the fixture is addressed by IP: docs/SPEC.md SafetyTag "an IP address as URL"
    safety_tags: ['suspicious_domain'],
    site_name: null,
    // <html lang="en">
    lang: 'en',
    author: null,
    published_time: null,
    theme_color: null,
    embed: null,
    fetched_url: `${origin}/article`,
  });
});

endpoint('a page whose og:url names another site: url is its claim, fetched_url the address fetched after redirects', async ({ up, svc }) => {
  const res = await svc.request(q(`${up.url('/moved').href}#token`));
  assert.is(res.status, 200);
  assert.is(res.json.url, 'http://bank.test/login');
  assert.is(res.json.fetched_url, up.url('/claims-a-bank').href);
});

endpoint('prefer=twitter changes only title, description, url, image and type, from the same fetch', async ({ up, svc }) => {
  const og = await svc.request(q(up.url('/shared').href));
  const tw = await svc.request(q(up.url('/shared').href, { prefer: 'twitter' }));
  assert.is(up.hits('/shared'), 1);
  assert.is(tw.json.title, 'Twitter title');
  assert.is(tw.json.description, 'Twitter description');
  assert.is(tw.json.url, 'https://example.org/tw');
  assert.equal(tw.json.image, { url: 'https://cdn.example.org/tw.jpg', type: 'image/png', width: 1200, height: 630, size: null });
  assert.is(tw.json.type, 'summary_large_image');
  assert.equal(tw.json.og, og.json.og);
  assert.equal(tw.json.twitter, og.json.twitter);
  assert.equal(tw.json.favicon, og.json.favicon);
});

endpoint('allow_fallback is accepted and changes nothing', async ({ up, svc }) => {
  const a = await svc.request(q(up.url('/article').href, { allow_fallback: 'false' }));
  const b = await svc.request(q(up.url('/article').href, { allow_fallback: 'true' }));
  assert.is(a.status, 200);
  assert.equal(a.json, b.json);
});

endpoint('an image URL describes itself in image (SPEC Metadata rule 2)', async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/image.png').href));
  assert.is(res.status, 200);
  assert.equal(res.json, {
    title: null,
    description: null,
    url: up.url('/image.png').href,
    image: { url: up.url('/image.png').href, type: 'image/png', width: 1, height: 1, size: null },
    type: null,
    favicon: { url: `${up.origin}/favicon.ico`, type: null, width: null, height: null, size: null },
    og: {},
    twitter: {},
    safety_tags: ['suspicious_domain'],
    site_name: null,
    lang: null,
    author: null,
    published_time: null,
    theme_color: null,
    embed: null,
    fetched_url: up.url('/image.png').href,
  });
});

endpoint('another content type gives nulls and the /favicon.ico fallback', async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/doc.pdf').href));
  assert.is(res.status, 200);
  assert.equal(res.json.title, null);
  assert.equal(res.json.image, { url: null, type: null, width: null, height: null, size: null });
  assert.is(res.json.favicon.url, `${up.origin}/favicon.ico`);
  assert.is(res.json.url, up.url('/doc.pdf').href);
});

for (const [path, name, reason, message] of [
  ['/gone', 'an upstream 404', 'http_status', 'The site answered 404.'],
  ['/broken', 'an upstream 500', 'http_status', 'The site answered 500.'],
  ['/empty', 'an empty body', 'empty_page', 'The site sent an empty page.'],
] as const) {
  endpoint(`${name} is a 422 with no-store`, async ({ up, svc }) => {
    const res = await svc.request(q(up.url(path).href));
    assert.is(res.status, 422);
    assert.equal(res.json, { code: 422, message, reason });
    assert.is(res.headers.get('cache-control'), 'no-store');
  });
}

endpoint('a failure is remembered for a while: the dead page is not fetched again at once', async ({ up, svc }) => {
  const before = up.hits('/broken');
  await svc.request(q(up.url('/broken').href));
  await svc.request(q(up.url('/broken').href, { prefer: 'twitter' }));
  assert.is(up.hits('/broken'), before);
});

endpoint('50 concurrent requests for one uncached URL make exactly one upstream request', async ({ up, svc }) => {
  const shared = await cacheOutcomes(svc.baseUrl, 'shared');
  const pending = Promise.all(Array.from({ length: 50 }, (_, i) => svc.request(q(up.url('/slow-single').href, i % 2 ? { prefer: 'twitter' } : {}))));
  await until(async () => (await cacheOutcomes(svc.baseUrl, 'shared')) === shared + 49, '49 requests to join the one fetch');
  singleHeld.open();
  const all = await pending;
  assert.ok(all.every((r) => r.status === 200 && r.json.title === 'Once'));
  assert.is(up.hits('/slow-single'), 1);
});

endpoint('the fragment is not part of the page: #a and #b share one fetch', async ({ up, svc }) => {
  const before = up.hits('/article');
  await svc.request(q(`${up.url('/article').href}#a`));
  await svc.request(q(`${up.url('/article').href}#b`));
  assert.ok(up.hits('/article') - before <= 1);
});

const names = suite('GET /v1/metadata safety tags');
names('a page on a named host that triggers nothing has no safety tags; a self-labelled adult page is adult', async () => {
  const up = await startUpstream({
    routes: {
      '/plain': respond(200, ARTICLE, html),
      '/adult': respond(200, '<head><title>x</title><meta name="RATING" content="RTA-5042-1996-1400-1577-RTA"></head>', html),
    },
  });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' }, { fetch: { resolver: lookupResolver(loopbackLookup(['news.test'])) } });
  try {
    const plain = await svc.request(q(up.url('/plain', 'news.test').href));
    assert.equal(plain.json.safety_tags, []);
    const adult = await svc.request(q(up.url('/adult', 'news.test').href, { prefer: 'twitter' }));
    assert.equal(adult.json.safety_tags, ['adult']);
  } finally {
    await svc.close();
    await up.close();
  }
});

endpoint.run();
names.run();

const protocols = suite('GET /v1/metadata over TLS and HTTP/2');
for (const protocol of ['https', 'h2'] as const) {
  protocols(`an ${protocol === 'h2' ? 'HTTP/2' : 'HTTPS'} upstream works, trusted through UPSTREAM_CA_FILE`, async () => {
    const up = await startUpstream({ protocol, routes: { '/p': respond(200, '<title>Secure</title>', html) } });
    const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', UPSTREAM_CA_FILE: TEST_CA_FILE });
    try {
      const res = await svc.request(q(up.url('/p').href));
      assert.is(res.status, 200);
      assert.is(res.json.title, 'Secure');
      assert.is(up.requests[0]!.httpVersion, protocol === 'h2' ? '2.0' : '1.1');
    } finally {
      await svc.close();
      await up.close();
    }
  });
}
protocols('a certificate that is not trusted is a 422, never an insecure success', async () => {
  const up = await startUpstream({ protocol: 'https', routes: { '/p': respond(200, '<title>Secure</title>', html) } });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  try {
    const res = await svc.request(q(up.url('/p').href));
    assert.is(res.status, 422);
    assert.equal(res.json, { code: 422, message: "The site's TLS certificate is not valid.", reason: 'tls_certificate' });
  } finally {
    await svc.close();
    await up.close();
  }
});
protocols.run();

const REDIS_URL = testRedisUrl(8);
const shared = suite('GET /v1/metadata cache on Redis');
shared('two instances on one Redis share extractions: the second answers without fetching', async () => {
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const up = await startUpstream({ routes: { '/p': respond(200, ARTICLE, html) } });
  const a = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', REDIS_URL });
  const b = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', REDIS_URL });
  try {
    const first = await a.request(q(up.url('/p').href));
    const second = await b.request(q(up.url('/p').href, { prefer: 'twitter' }));
    assert.is(first.json.title, 'OG title');
    assert.is(second.json.title, 'Twitter title');
    assert.is(up.hits('/p'), 1);
  } finally {
    await a.close();
    await b.close();
    await up.close();
  }
});
shared('an unreachable Redis degrades to memory: still 200, never a 500', async () => {
  const up = await startUpstream({ routes: { '/p': respond(200, ARTICLE, html) } });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', REDIS_URL: 'redis://127.0.0.1:1' });
  try {
    const res = await svc.request(q(up.url('/p').href));
    assert.is(res.status, 200);
    assert.is(res.json.title, 'OG title');
    assert.ok(svc.app.degraded);
    await svc.request(q(up.url('/p').href));
    assert.is(up.hits('/p'), 1); // the memory store took over the cache too
  } finally {
    await svc.close();
    await up.close();
  }
});
shared.run();

const overload = suite('GET /v1/metadata past the fetch cap');
overload('with every fetch slot and queue place taken, a request is a 503 with Retry-After, not a pile-up', async () => {
  // The upstream says when the first request has arrived (so it holds the only slot) and answers
  // it only once the second has been refused.
  let arrived!: () => void;
  const firstArrived = new Promise<void>((r) => (arrived = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const up = await startUpstream({
    routes: {
      '/slow': async (_req, res) => {
        arrived();
        await released;
        res.writeHead(200, html);
        res.end('<title>Slow</title>');
      },
    },
  });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', MAX_CONCURRENT_FETCHES: '1', FETCH_QUEUE_MAX: '0' });
  try {
    const first = svc.request(q(up.url('/slow?a').href));
    await firstArrived;
    const second = await svc.request(q(up.url('/slow?b').href));
    release();
    assert.is(second.status, 503);
    assert.equal(second.json, { code: 503, message: 'The service is busy; retry in a second.' });
    assert.is(second.headers.get('retry-after'), '1');
    assert.is((await first).status, 200);
    // not remembered as a failure of the page: once a slot is free it is fetched
    const again = await svc.request(q(up.url('/slow?b').href));
    assert.is(again.status, 200);
  } finally {
    await svc.close();
    await up.close();
  }
});
overload.run();

const enrichment = suite('GET /v1/metadata: enrichment within its budget');
enrichment('what enrichers set in time is answered and cached; what one sets after the budget reaches neither', async () => {
  const up = await startUpstream({ routes: { '/a': respond(200, ARTICLE, html) } });
  const inTime: Enricher = async ({ og, twitter }) => {
    og.description = 'enriched in time';
    twitter.description = 'enriched in time';
  };
  // The late enricher writes only once the first answer is out, and says when it has written.
  let answered!: () => void;
  const firstAnswered = new Promise<void>((r) => (answered = r));
  let written!: () => void;
  const lateWritten = new Promise<void>((r) => (written = r));
  const late: Enricher = async ({ og, twitter }) => {
    await firstAnswered;
    og.title = 'too late';
    twitter.title = 'too late';
    written();
  };
  const svc = await startService({ RATE_LIMIT_MAX: '0', ENRICH_BUDGET_MS: '100' }, { enrichers: [inTime, late] });
  try {
    const first = await svc.request(q(up.url('/a').href));
    answered();
    assert.is(first.status, 200);
    assert.equal([first.json.title, first.json.description], ['OG title', 'enriched in time']);
    await lateWritten;
    // Another query string: past the response fast path, from the cached extraction.
    const cached = await svc.request(q(up.url('/a').href, { prefer: 'twitter' }));
    assert.equal([cached.json.title, cached.json.description], ['Twitter title', 'enriched in time']);
    assert.is(up.hits('/a'), 1);
  } finally {
    await svc.close();
    await up.close();
  }
});

enrichment('when every enricher settles in time, both variants are cached as they were answered', async () => {
  const up = await startUpstream({ routes: { '/b': respond(200, ARTICLE, html) } });
  const tag: Enricher = async ({ og, twitter }) => {
    og.type = 'video';
    twitter.type = 'video';
  };
  const svc = await startService({ RATE_LIMIT_MAX: '0', ENRICH_BUDGET_MS: '1000' }, { enrichers: [tag] });
  try {
    const og = await svc.request(q(up.url('/b').href));
    const twitter = await svc.request(q(up.url('/b').href, { prefer: 'twitter' }));
    assert.equal([og.json.type, twitter.json.type], ['video', 'video']);
    assert.is(up.hits('/b'), 1);
  } finally {
    await svc.close();
    await up.close();
  }
});
enrichment.run();
