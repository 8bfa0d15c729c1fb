import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';

// The fields beyond docs/SPEC.md through GET /v1/metadata: the real app and fetcher, real upstream
// servers on loopback, every response checked against openapi.yaml by the helper. Then the bad
// inputs, one test per attack: each is answered 200 with the field null, never a 500.

const html = { 'content-type': 'text/html; charset=utf-8' };
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;
const ld = (json: string) => `<script type="application/ld+json">${json}</script>`;
const page = (head: string, lang = '') => `<!doctype html><html${lang}><head><title>T</title>${head}</head><body><p>text</p></body></html>`;
const ARTICLE_LD = JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'NewsArticle',
  author: { '@type': 'Person', name: 'Ann Lee' },
  datePublished: '2021-03-04T05:06:07-03:00',
  publisher: { '@type': 'Organization', name: 'Daily' },
});

const EVERY_FIELD = page(
  `<meta property="og:site_name" content="The Daily Example">
<meta name="author" content="Jane Doe">
<meta property="article:published_time" content="2024-05-01T11:30:00+02:00">
<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#000000">
<meta name="theme-color" content="#BB1919">`,
  ' lang="en-gb"',
);

const NONE = { site_name: null, lang: null, author: null, published_time: null, theme_color: null, embed: null };

interface Ctx {
  up: Upstream;
  svc: Service;
}
const fields = suite<Ctx>('fields beyond SPEC.md');
fields.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/every-field': respond(200, EVERY_FIELD, html),
      '/from-json-ld': respond(200, page(ld(ARTICLE_LD)), { ...html, 'content-language': 'pt-BR, en' }),
      '/huge-json-ld': respond(200, page(ld(`[${`${ARTICLE_LD},`.repeat(2300)}${ARTICLE_LD}]`)), html),
      '/deep-json-ld': respond(200, page(ld(`${'['.repeat(30_000)}${ARTICLE_LD}${']'.repeat(30_000)}`)), html),
      '/invalid-json-ld': respond(200, page(ld(ARTICLE_LD.slice(0, -5)) + ld('{"@type": "Article", "author": undefined}')), html),
      '/graphs-json-ld': respond(200, page(ld(`[${'{"@graph":[{}]},'.repeat(4000)}{"@graph":[${ARTICLE_LD}]}]`)), html),
      '/garbage-date': respond(200, page('<meta property="article:published_time" content="Tuesday, the day after the storm">'), html),
      '/bad-lang': respond(200, page('<meta property="og:locale" content="English (US)">', ' lang="en_US!"'), { ...html, 'content-language': '*' }),
      '/css-injection': respond(200, page('<meta name="theme-color" content="red;background:url(https://evil.example/x)">'), html),
    },
  });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
});
fields.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

fields('a page with every extra field gives the exact object with them filled', async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/every-field').href));
  assert.is(res.status, 200);
  assert.equal(res.json, {
    title: 'T',
    description: null,
    url: up.url('/every-field').href,
    image: { url: null, type: null, width: null, height: null, size: null },
    type: null,
    favicon: { url: `${up.origin}/favicon.ico`, type: null, width: null, height: null, size: null },
    og: { 'og:site_name': 'The Daily Example' },
    twitter: {},
    // the fixture is addressed by IP: docs/SPEC.md SafetyTag "an IP address as URL"
    safety_tags: ['suspicious_domain'],
    site_name: 'The Daily Example',
    lang: 'en-GB',
    author: 'Jane Doe',
    published_time: '2024-05-01T09:30:00.000Z',
    // The one without media wins over the dark one; lower-cased.
    theme_color: '#bb1919',
    embed: null,
    fetched_url: up.url('/every-field').href,
  });
});

fields('JSON-LD fills author, published_time and site_name; the Content-Language header fills lang', async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/from-json-ld').href));
  assert.is(res.status, 200);
  assert.equal(pick(res.json), {
    site_name: 'Daily',
    lang: 'pt-BR',
    author: 'Ann Lee',
    published_time: '2021-03-04T08:06:07.000Z',
    theme_color: null,
    embed: null,
  });
});

const attacks: [string, string][] = [
  ['JSON-LD that is huge (a 450 KB script) is left out: null fields', '/huge-json-ld'],
  ['JSON-LD nested 30,000 levels deep: null fields', '/deep-json-ld'],
  ['invalid JSON-LD (cut short, then JavaScript): null fields', '/invalid-json-ld'],
  ['an array of 4,000 graphs, the article last: past the node bound, null fields', '/graphs-json-ld'],
  ['a published_time in a garbage format: null', '/garbage-date'],
  ['a lang that is not BCP 47 (html lang, og:locale and header alike): null', '/bad-lang'],
  ['a theme-color that is CSS injection (red;background:url(…)): null', '/css-injection'],
];
for (const [name, path] of attacks) {
  fields(name, async ({ up, svc }) => {
    const res = await svc.request(q(up.url(path).href));
    assert.is(res.status, 200);
    assert.is(res.json.title, 'T');
    assert.equal(pick(res.json), NONE);
  });
}

function pick(body: Record<string, unknown>) {
  const { site_name, lang, author, published_time, theme_color, embed } = body;
  return { site_name, lang, author, published_time, theme_color, embed };
}

fields.run();
