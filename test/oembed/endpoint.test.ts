import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { fixtureLookup, html, metadataBody, oembedAnswer, pageWithLink, q, videoAnswer, videoEmbed } from './fixtures.js';
import { lookupResolver } from '../fetch/harness.js';

// oEmbed end to end: the real app, the real fetcher and the real provider matching, with one
// known provider registered on loopback (video.test) in place of the registry, whose hosts tests
// never contact. Every response is checked against openapi.yaml by the helper.

interface Ctx {
  up: Upstream;
  svc: Service;
  site: (path: string) => string;
  video: (path: string) => string;
}
const test = suite<Ctx>('oEmbed in /v1/metadata');

const RICH = { version: '1.0', type: 'rich', title: ' From the page link ', html: '<blockquote>quoted</blockquote>', width: 550, height: null };
const RICH_EMBED = {
  type: 'rich' as const,
  provider_name: null,
  provider_url: null,
  title: 'From the page link',
  author_name: null,
  author_url: null,
  thumbnail_url: null,
  thumbnail_width: null,
  thumbnail_height: null,
  width: 550,
  height: null,
  html: '<blockquote>quoted</blockquote>',
};

test.before(async (ctx) => {
  // The provider's endpoint answers for the pages it knows and 404 for the rest.
  const known: Record<string, string> = { '/watch/1': 'Watch one', '/blocked/1': 'Blocked one' };
  ctx.up = await startUpstream({
    routes: {
      '/article': pageWithLink('An article', '/discovered/article'),
      '/discovered/article': oembedAnswer(RICH),
      '/watch/1': pageWithLink('Watch one', '/discovered/watch'),
      '/watch/2': pageWithLink('Watch two', '/discovered/watch'),
      '/discovered/watch': oembedAnswer(RICH),
      '/blocked/1': respond(403, '<title>Forbidden</title>', html),
      '/blocked/2': respond(403, '<title>Forbidden</title>', html),
      '/gone': respond(404, '<title>Not found</title>', html),
      '/provider': (req, res) => {
        const page = new URL(new URL(req.url ?? '/', 'http://x').searchParams.get('url') ?? '', 'http://x').pathname;
        const title = known[page];
        return title === undefined ? respond(404, 'no such video')(req, res) : oembedAnswer(videoAnswer(title))(req, res);
      },
    },
  });
  const at = (host: string) => (path: string) => ctx.up.url(path, host).href;
  ctx.site = at('site.test');
  ctx.video = at('video.test');
  const origin = `http://video.test:${ctx.up.port}`;
  ctx.svc = await startService(
    { RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' },
    {
      fetch: { resolver: lookupResolver(fixtureLookup()) },
      oembedProviders: [{ endpoint: `${origin}/provider`, schemes: [`${origin}/watch/*`, `${origin}/blocked/*`, `http://gone.test:${ctx.up.port}/*`] }],
    },
  );
});
test.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

test("a page's discovered JSON oEmbed link fills embed; the SPEC fields stay the page's", async ({ svc, site }) => {
  const res = await svc.request(q(site('/article')));
  assert.is(res.status, 200);
  assert.equal(res.json, metadataBody(site('/article'), { title: 'An article', embed: RICH_EMBED }));
});

test("a known provider's endpoint is asked first, for JSON about the page without its fragment", async ({ up, svc, video }) => {
  const res = await svc.request(q(`${video('/watch/1')}#t=30`));
  assert.is(res.status, 200);
  assert.equal(res.json, metadataBody(video('/watch/1'), { title: 'Watch one', embed: videoEmbed('Watch one') }));
  const asked = up.requests.filter((r) => r.path.startsWith('/provider'));
  assert.equal(
    asked.map((r) => r.path),
    [`/provider?${new URLSearchParams({ format: 'json', url: video('/watch/1') })}`],
  );
  assert.is(asked[0]!.headers.accept, 'application/json');
  assert.is(up.hits('/discovered/watch'), 0, "the page's own link was not needed");
});

test("when the known provider gives nothing, the page's discovered link answers", async ({ up, svc, video }) => {
  const res = await svc.request(q(video('/watch/2')));
  assert.equal(res.json, metadataBody(video('/watch/2'), { title: 'Watch two', embed: RICH_EMBED }));
  assert.is(up.hits('/discovered/watch'), 1);
});

test('a blocked page (403) of a known provider is answered 200 from its oEmbed alone', async ({ svc, video }) => {
  const res = await svc.request(q(video('/blocked/1')));
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'public, max-age=43200');
  assert.equal(res.json, metadataBody(video('/blocked/1'), { embed: videoEmbed('Blocked one') }));
});

test('a blocked page whose provider gives nothing stays the 422 of its status', async ({ up, svc, video }) => {
  const res = await svc.request(q(video('/blocked/2')));
  assert.equal([res.status, res.json], [422, { code: 422, reason: 'http_status', message: 'The site answered 403.' }]);
  assert.ok(
    up.requests.some((r) => r.path.includes(encodeURIComponent(video('/blocked/2')))),
    'the provider was asked',
  );
});

test('a failed page of no known provider is the usual 422, and no endpoint is asked', async ({ up, svc, site }) => {
  const before = up.hits('/provider');
  const res = await svc.request(q(site('/gone')));
  assert.equal([res.status, res.json], [422, { code: 422, reason: 'http_status', message: 'The site answered 404.' }]);
  assert.is(up.hits('/provider'), before);
});

test('a page of a known provider that cannot be reached at all is not answered from oEmbed', async ({ up, svc }) => {
  const before = up.hits('/provider');
  const res = await svc.request(q(`http://gone.test:${up.port}/watch/1`));
  assert.equal([res.status, res.json], [422, { code: 422, reason: 'name_not_resolved', message: 'The name gone.test does not resolve.' }]);
  assert.is(up.hits('/provider'), before);
});

test('embed is stored with the extraction: both prefer variants carry it, from one oEmbed fetch', async ({ up, svc, site }) => {
  const url = `${site('/article')}?cached`;
  const before = up.hits('/discovered/article');
  const og = await svc.request(q(url));
  const twitter = await svc.request(q(url, { prefer: 'twitter' }));
  const again = await svc.request(q(url));
  assert.equal([og.json.embed, twitter.json.embed, again.json], [RICH_EMBED, RICH_EMBED, og.json]);
  assert.is(up.hits('/discovered/article'), before + 1);
});

test.run();
