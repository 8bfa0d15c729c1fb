import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicAddress } from '../../src/fetch/address.js';
import { startService, type Service } from '../helpers/service.js';
import { redirect, respond, startUpstream, type Route, type Upstream, type UpstreamResponse } from '../helpers/upstream.js';
import { fixtureLookup, html, metadataBody, oembedAnswer, pageWithLink, q, videoAnswer, videoEmbed } from './fixtures.js';
import { lookupResolver } from '../fetch/harness.js';

// Hostile oEmbed endpoints, one test per attack, against the real app with the address guard ON
// (ALLOW_PRIVATE_NETWORKS=false): only the fixture's 127.0.0.1 counts as public (the
// isPublicAddress test seam); 127.0.0.2, where a "private" server listens, stays private. Each
// page declares its own endpoint; every attack leaves `embed` null (or, for a page that failed
// itself, its usual 422), and an ordinary page is answered right after it.

const ENRICH_BUDGET_MS = 500;

interface Ctx {
  up: Upstream;
  inside: Upstream;
  svc: Service;
  site: (path: string) => string;
  /** Responses of the slow endpoint, held until the test lets them go. */
  held: UpstreamResponse[];
}
const attacks = suite<Ctx>('hostile oEmbed endpoints');

/** The endpoint of each attack, served at /oembed/<name> and declared by the page /page/<name>. */
function endpoints(ctx: Ctx): Record<string, Route> {
  // Valid JSON whatever its length: a reader that kept only the first bytes would still parse them.
  const fiveMegabytes = `{"type":"video","title":"Long"}${' '.repeat(5 * 1024 * 1024)}`;
  return {
    html: oembedAnswer('<!doctype html><html><head><title>Not JSON</title></head></html>', 'text/html; charset=utf-8'),
    html_labelled_json: oembedAnswer('<!doctype html><html><head><title>Not JSON</title></head></html>'),
    json_labelled_html: oembedAnswer(videoAnswer('Labelled HTML'), 'text/html; charset=utf-8'),
    five_megabytes: oembedAnswer(fiveMegabytes),
    to_private_address: redirect(302, `http://127.0.0.2:${ctx.inside.port}/oembed`),
    to_private_name: redirect(302, `http://inside.test:${ctx.inside.port}/oembed`),
    invalid_json: oembedAnswer('{"type": "video", "title": "cut here'),
    other_type: oembedAnswer({ ...videoAnswer('A movie'), type: 'movie' }),
    javascript_thumbnail: oembedAnswer({ ...videoAnswer('Script'), thumbnail_url: 'javascript:alert(document.domain)' }),
    slow: (_req, res) => void ctx.held.push(res),
  };
}

attacks.before(async (ctx) => {
  ctx.held = [];
  ctx.inside = await startUpstream({ host: '127.0.0.2', routes: { '/oembed': oembedAnswer(videoAnswer('Inside')) } });
  const routes: Record<string, Route> = {
    '/ok': respond(200, '<title>Ordinary</title>', html),
    '/blocked': respond(403, '<title>Forbidden</title>', html),
    '/provider-html': oembedAnswer('<html><body>Sign in</body></html>', 'text/html'),
  };
  for (const [name, route] of Object.entries(endpoints(ctx))) {
    routes[`/oembed/${name}`] = route;
    routes[`/page/${name}`] = pageWithLink('Page', `/oembed/${name}`);
  }
  ctx.up = await startUpstream({ routes });
  ctx.site = (path) => ctx.up.url(path, 'site.test').href;
  const video = `http://video.test:${ctx.up.port}`;
  ctx.svc = await startService(
    { RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', ALLOW_PRIVATE_NETWORKS: 'false', ENRICH_BUDGET_MS: String(ENRICH_BUDGET_MS) },
    {
      fetch: { resolver: lookupResolver(fixtureLookup()), isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) },
      oembedProviders: [{ endpoint: `${video}/provider-html`, schemes: [`${video}/blocked`] }],
    },
  );
});

attacks.after(async (ctx) => {
  for (const res of ctx.held) res.destroy();
  await ctx.svc.close();
  await ctx.up.close();
  await ctx.inside.close();
});

/** Asks for the page of attack `name`; expects a 200 whose only oEmbed part is `embed`, then an ordinary page. */
async function answered(ctx: Ctx, name: string, embed: unknown = null): Promise<void> {
  const url = ctx.site(`/page/${name}`);
  const res = await ctx.svc.request(q(url));
  assert.equal([res.status, res.json], [200, metadataBody(url, { title: 'Page', embed: embed as null })]);
  const ordinary = await ctx.svc.request(q(ctx.site(`/ok?after=${name}`)));
  assert.equal([ordinary.status, ordinary.json.title], [200, 'Ordinary']);
}

attacks('an oEmbed endpoint that answers HTML', async (ctx) => {
  await answered(ctx, 'html');
});

attacks('an oEmbed endpoint that answers HTML labelled application/json', async (ctx) => {
  await answered(ctx, 'html_labelled_json');
});

attacks('a JSON oEmbed answer labelled text/html', async (ctx) => {
  await answered(ctx, 'json_labelled_html');
});

attacks('a 5 MB oEmbed answer', async (ctx) => {
  await answered(ctx, 'five_megabytes');
});

attacks('an oEmbed endpoint redirecting to a private address', async (ctx) => {
  await answered(ctx, 'to_private_address');
  assert.is(ctx.up.hits('/oembed/to_private_address'), 1, 'the first hop was fetched');
  assert.equal([ctx.inside.requests.length, ctx.inside.connections], [0, 0], 'the private server was never dialled');
});

attacks('an oEmbed endpoint redirecting to a name that resolves to a private address', async (ctx) => {
  await answered(ctx, 'to_private_name');
  assert.equal([ctx.inside.requests.length, ctx.inside.connections], [0, 0], 'the private server was never dialled');
});

attacks('an oEmbed answer that is not valid JSON', async (ctx) => {
  await answered(ctx, 'invalid_json');
});

attacks('an oEmbed type outside photo, video, link and rich', async (ctx) => {
  await answered(ctx, 'other_type');
});

attacks('a javascript: thumbnail_url', async (ctx) => {
  await answered(ctx, 'javascript_thumbnail', { ...videoEmbed('Script'), thumbnail_url: null });
});

attacks('an oEmbed endpoint slower than the enrichment budget', async (ctx) => {
  const before = ctx.up.requests.length;
  // The endpoint never answers on its own: the page's answer arriving proves nothing waited for it.
  await answered(ctx, 'slow');
  const asked = ctx.up.requests.slice(before).find((r) => r.path === '/oembed/slow');
  assert.ok(asked, 'the endpoint was asked');
  assert.is(await asked.outcome, 'closed early', 'the budget ended the fetch');
  assert.is(ctx.held.length, 1);
});

attacks('a blocked page whose provider endpoint answers HTML stays the 422 of its status', async (ctx) => {
  const res = await ctx.svc.request(q(`http://video.test:${ctx.up.port}/blocked`));
  assert.equal([res.status, res.json], [422, { code: 422, reason: 'http_status', message: 'The site answered 403.' }]);
  assert.is(ctx.up.hits('/provider-html'), 1);
});

attacks.run();
