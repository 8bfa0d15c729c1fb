import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type http from 'node:http';
import type { LookupFunction } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { isPublicAddress } from '../../src/fetch/address.js';
import { createSafeFetch, type SafeFetchDeps, type SafeFetchService } from '../../src/fetch/fetcher.js';
import type { ProbeOutcome } from '../../src/images/probe.js';
import { imageEnricher, type ProbeKind } from '../../src/metadata/enrich-images.js';
import { scriptedLookup, lookupResolver } from '../fetch/harness.js';
import { TEST_ENV, startService, type Service } from '../helpers/service.js';
import { redirect, respond, startUpstream, type Route, type Upstream } from '../helpers/upstream.js';
import { SVG_ICON, ico, png, ranged } from '../images/image-bytes.js';

// Image and favicon probes end to end: the real app with imageEnricher as its enrichment
// step, the real fetcher, fixture sites on loopback; every answer checked against openapi.yaml.

const html = { 'content-type': 'text/html; charset=utf-8' };
const pngType = { 'content-type': 'image/png' };
const star = { 'access-control-allow-origin': '*' };
const q = (url: string, extra: Record<string, string> = {}) => `/v1/metadata?${new URLSearchParams({ url, ...extra })}`;

/** A page head with the given meta tags (property or name → content) and link tags. */
function page(metas: Record<string, string>, links: string[] = []): Route {
  const tags = Object.entries(metas).map(([key, content]) =>
    key.startsWith('og:') ? `<meta property="${key}" content="${content}">` : `<meta name="${key}" content="${content}">`,
  );
  return respond(200, `<!doctype html><html><head><title>t</title>${tags.join('')}${links.join('')}</head><body></body></html>`, html);
}

interface Probing {
  svc: Service;
  fetcher: SafeFetchService;
  probes: Array<[ProbeKind, ProbeOutcome]>;
  close(): Promise<void>;
}

/** The app with only the image enricher (deps.enrichers replaces the default list), on its own safeFetch. */
async function startProbing(env: Record<string, string> = {}, fetch: SafeFetchDeps = {}): Promise<Probing> {
  const all = { RATE_LIMIT_MAX: '0', ...env };
  const config = loadConfig({ ...TEST_ENV, ...all });
  const fetcher = createSafeFetch(config, fetch);
  const probes: Probing['probes'] = [];
  const svc = await startService(all, {
    fetch,
    enrichers: [imageEnricher({ safeFetch: fetcher.safeFetch, config, onProbe: (kind, outcome) => probes.push([kind, outcome]) })],
  });
  return {
    svc,
    fetcher,
    probes,
    async close() {
      await svc.close();
      await fetcher.close();
    },
  };
}

// ---- One site with every kind of image -------------------------------------------------------

interface Ctx {
  up: Upstream;
  p: Probing;
  /** Sites whose /favicon.ico is missing, a soft 404, an ICO, failing. */
  noIcon: Upstream;
  softIcon: Upstream;
  icoIcon: Upstream;
  failingIcon: Upstream;
}
const probes = suite<Ctx>('image and favicon probes');

probes.before(async (ctx) => {
  const icon32 = [`<link rel="icon" href="/icons/32.png" sizes="32x32" type="image/png">`];
  ctx.up = await startUpstream({
    routes: {
      '/tags-win': page({ 'og:image': '/img/photo.png', 'og:image:width': '1200', 'og:image:height': '630', 'og:image:type': 'image/jpeg' }, icon32),
      '/fills': page({ 'og:image': '/img/fill.png' }, [`<link rel="icon" type="image/svg+xml" href="/icons/icon.svg">`]),
      '/half-tagged': page({ 'og:image': '/img/half.png', 'og:image:width': '600' }, icon32),
      '/size-tag': page({ 'og:image': '/img/sized.png', 'og:image:size': '12345' }, icon32),
      '/three': page({ 'og:image': '/img/a.png', 'twitter:image': '/img/b.png' }, [`<link rel="icon" href="/icons/c.png">`]),
      '/same': page({ 'og:image': '/img/same.png', 'twitter:image': '/img/same.png' }, [`<link rel="icon" href="/img/same.png">`]),
      '/failing-image': page({ 'og:image': '/img/503.png', 'og:image:width': '100' }, icon32),
      '/no-cors': page({ 'og:image': '/img/plain.png' }, icon32),
      '/declared-missing': page({}, [`<link rel="icon" href="/icons/missing.png" sizes="16x16">`]),
      '/img/photo.png': ranged(png(640, 480), { ...pngType, ...star }),
      '/img/fill.png': ranged(png(640, 480, 50_000), { ...pngType, 'access-control-allow-origin': 'https://www.example.com' }),
      '/img/half.png': ranged(png(1200, 630), pngType),
      '/img/sized.png': ranged(png(64, 64), pngType),
      '/img/a.png': ranged(png(10, 20), { ...pngType, ...star }),
      '/img/b.png': ranged(png(30, 40), pngType),
      '/img/same.png': ranged(png(50, 50), { ...pngType, ...star }),
      '/img/plain.png': ranged(png(8, 8), pngType),
      '/img/503.png': respond(503, 'busy', { 'content-type': 'text/plain', ...star }),
      '/icons/32.png': ranged(png(32, 32), pngType),
      '/icons/icon.svg': ranged(SVG_ICON, { 'content-type': 'image/svg+xml', ...star }),
      '/icons/c.png': ranged(png(16, 16), { ...pngType, ...star }),
      '/favicon.ico': ranged(ico([48, 16]), { 'content-type': 'image/x-icon', ...star }),
    },
  });
  const bare = page({});
  ctx.noIcon = await startUpstream({
    routes: {
      '/': bare,
      '/declares-ico': page({}, [`<link rel="shortcut icon" href="/favicon.ico">`]),
      '/doc.pdf': respond(200, '%PDF-1.4', { 'content-type': 'application/pdf' }),
    },
  });
  ctx.softIcon = await startUpstream({ routes: { '/': bare, '/favicon.ico': respond(200, '<!DOCTYPE html><title>Not found</title>', html) } });
  ctx.icoIcon = await startUpstream({ routes: { '/': bare, '/favicon.ico': ranged(ico([32, 16]), { 'content-type': 'image/vnd.microsoft.icon' }) } });
  ctx.failingIcon = await startUpstream({ routes: { '/': bare, '/favicon.ico': respond(503, 'busy', { 'content-type': 'text/plain' }) } });
  ctx.p = await startProbing();
});
probes.after(async (ctx) => {
  await ctx.p.close();
  for (const up of [ctx.up, ctx.noIcon, ctx.softIcon, ctx.icoIcon, ctx.failingIcon]) await up.close();
});

const get = async ({ p }: Ctx, url: string, prefer?: 'og' | 'twitter') => {
  const res = await p.svc.request(q(url, prefer ? { prefer } : {}));
  assert.is(res.status, 200, res.text);
  return res.json;
};

probes('tags win over the probe; the probe adds cors_safe', async (ctx) => {
  const { image, favicon } = await get(ctx, ctx.up.url('/tags-win').href);
  assert.equal(image, { url: `${ctx.up.origin}/img/photo.png`, type: 'image/jpeg', width: 1200, height: 630, size: null, cors_safe: true });
  assert.equal(favicon, { url: `${ctx.up.origin}/icons/32.png`, type: 'image/png', width: 32, height: 32, size: null, cors_safe: false });
});

probes('the probe fills what the tags left out; size stays null (only og:image:size gives it)', async (ctx) => {
  const { image, favicon } = await get(ctx, ctx.up.url('/fills').href);
  // A named origin is not cors_safe: the element runs on arbitrary origins.
  assert.equal(image, { url: `${ctx.up.origin}/img/fill.png`, type: 'image/png', width: 640, height: 480, size: null, cors_safe: false });
  // The declared SVG favicon: typed by its link, sized by its root element.
  assert.equal(favicon, { url: `${ctx.up.origin}/icons/icon.svg`, type: 'image/svg+xml', width: 48, height: 48, size: null, cors_safe: true });
});

probes('one tagged dimension: the other follows the real aspect ratio at the tagged scale', async (ctx) => {
  const { image } = await get(ctx, ctx.up.url('/half-tagged').href);
  assert.equal(image, { url: `${ctx.up.origin}/img/half.png`, type: 'image/png', width: 600, height: 315, size: null, cors_safe: false });
});

probes('og:image:size is kept; the probe never sets size', async (ctx) => {
  const { image } = await get(ctx, ctx.up.url('/size-tag').href);
  assert.equal(image, { url: `${ctx.up.origin}/img/sized.png`, type: 'image/png', width: 64, height: 64, size: 12345, cors_safe: false });
});

probes('cors_safe is false without Access-Control-Allow-Origin', async (ctx) => {
  const { image } = await get(ctx, ctx.up.url('/no-cors').href);
  assert.is(image.cors_safe, false);
});

probes('a probe without an answer (503) leaves the tagged fields and no cors_safe', async (ctx) => {
  const { image } = await get(ctx, ctx.up.url('/failing-image').href);
  assert.equal(image, { url: `${ctx.up.origin}/img/503.png`, type: null, width: 100, height: null, size: null });
  assert.not.ok('cors_safe' in image);
});

probes('og image, twitter image and favicon: each probed once, each result in both variants; cached after', async (ctx) => {
  const { up, p } = ctx;
  const before = p.probes.length;
  const og = await get(ctx, up.url('/three').href);
  assert.equal([up.hits('/img/a.png'), up.hits('/img/b.png'), up.hits('/icons/c.png')], [1, 1, 1]);
  assert.equal(p.probes.slice(before).sort(), [
    ['favicon', 'image'],
    ['image', 'image'],
    ['image', 'image'],
  ]);
  const twitter = await get(ctx, up.url('/three').href, 'twitter');
  assert.equal(og.image, { url: `${up.origin}/img/a.png`, type: 'image/png', width: 10, height: 20, size: null, cors_safe: true });
  assert.equal(twitter.image, { url: `${up.origin}/img/b.png`, type: 'image/png', width: 30, height: 40, size: null, cors_safe: false });
  const icon = { url: `${up.origin}/icons/c.png`, type: 'image/png', width: 16, height: 16, size: null, cors_safe: true };
  assert.equal([og.favicon, twitter.favicon], [icon, icon]);

  // Probes are part of the cached extraction: more requests, either preference, no new probe.
  await get(ctx, up.url('/three').href);
  await get(ctx, up.url('/three').href, 'twitter');
  assert.equal([up.hits('/img/a.png'), up.hits('/img/b.png'), up.hits('/icons/c.png'), up.hits('/three')], [1, 1, 1, 1]);
});

probes('one URL used as og image, twitter image and favicon is probed once', async (ctx) => {
  const og = await get(ctx, ctx.up.url('/same').href);
  const twitter = await get(ctx, ctx.up.url('/same').href, 'twitter');
  assert.is(ctx.up.hits('/img/same.png'), 1);
  const same = { url: `${ctx.up.origin}/img/same.png`, type: 'image/png', width: 50, height: 50, size: null, cors_safe: true };
  assert.equal([og.image, og.favicon, twitter.image, twitter.favicon], [same, same, same, same]);
});

probes('the /favicon.ico fallback that is 404 becomes url null', async (ctx) => {
  const { favicon } = await get(ctx, ctx.noIcon.url('/').href);
  assert.equal(favicon, { url: null, type: null, width: null, height: null, size: null });
  assert.is(ctx.noIcon.hits('/favicon.ico'), 1);
});

probes('the /favicon.ico fallback that is an HTML page (soft 404) becomes url null', async (ctx) => {
  const { favicon } = await get(ctx, ctx.softIcon.url('/').href);
  assert.equal(favicon, { url: null, type: null, width: null, height: null, size: null });
});

probes('the /favicon.ico fallback that is an ICO is described by its first image', async (ctx) => {
  const { favicon } = await get(ctx, ctx.icoIcon.url('/').href);
  assert.equal(favicon, { url: `${ctx.icoIcon.origin}/favicon.ico`, type: 'image/x-icon', width: 32, height: 32, size: null, cors_safe: false });
});

probes('the /favicon.ico fallback that fails with 503 keeps its URL: no answer is no proof', async (ctx) => {
  const { favicon } = await get(ctx, ctx.failingIcon.url('/').href);
  assert.equal(favicon, { url: `${ctx.failingIcon.origin}/favicon.ico`, type: null, width: null, height: null, size: null });
});

probes('a declared favicon that is 404 keeps its URL (page data) with cors_safe false', async (ctx) => {
  const { favicon } = await get(ctx, ctx.up.url('/declared-missing').href);
  assert.equal(favicon, { url: `${ctx.up.origin}/icons/missing.png`, type: null, width: 16, height: 16, size: null, cors_safe: false });
});

probes('a page that declares /favicon.ico itself keeps it when it is 404', async (ctx) => {
  const { favicon } = await get(ctx, ctx.noIcon.url('/declares-ico').href);
  assert.equal(favicon, { url: `${ctx.noIcon.origin}/favicon.ico`, type: null, width: null, height: null, size: null, cors_safe: false });
});

probes('a non-HTML target: its own image gets cors_safe; a missing /favicon.ico fallback is null', async (ctx) => {
  const img = await get(ctx, ctx.up.url('/img/photo.png').href);
  assert.equal(img.image, { url: `${ctx.up.origin}/img/photo.png`, type: 'image/png', width: 640, height: 480, size: null, cors_safe: true });
  assert.equal(img.favicon, { url: `${ctx.up.origin}/favicon.ico`, type: 'image/x-icon', width: 48, height: 48, size: null, cors_safe: true });
  const pdf = await get(ctx, ctx.noIcon.url('/doc.pdf').href);
  assert.equal(pdf.favicon, { url: null, type: null, width: null, height: null, size: null });
});

probes.run();

// ---- The budget ------------------------------------------------------------------------------

const budget = suite<{ up: Upstream; p: Probing }>('a probe that runs out of time');
const BUDGET_MS = 400;
/** When the slow images finally come whole: long after the budget, well inside the fetch deadline. */
const LATE_MS = 10 * BUDGET_MS;

/** `begin` at once; `finish` after LATE_MS, unless the client has hung up by then. */
function late(begin: (res: http.ServerResponse) => void, finish: (res: http.ServerResponse) => void): Route {
  return (_req, res) => {
    const out = res as http.ServerResponse;
    begin(out);
    const timer = setTimeout(() => finish(out), LATE_MS);
    out.once('close', () => clearTimeout(timer));
  };
}

const lateImage = png(3, 3);

budget.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/slow-image': page({ 'og:image': '/img/stall.png', 'og:image:type': 'image/png' }, [`<link rel="icon" href="/icons/quick.png">`]),
      '/drip-image': page({ 'og:image': '/img/drip.png' }),
      '/ok': page({ 'og:image': '/img/quick.png' }),
      // No status line until LATE_MS, then the whole image.
      '/img/stall.png': late(
        () => {},
        (res) => {
          res.writeHead(200, { ...pngType, ...star });
          res.end(lateImage);
        },
      ),
      // Headers and the 8 bytes of a PNG signature at once (they never name the image), the rest at LATE_MS.
      '/img/drip.png': late(
        (res) => {
          res.writeHead(200, { ...pngType, ...star });
          res.write(lateImage.subarray(0, 8));
        },
        (res) => res.end(lateImage.subarray(8)),
      ),
      '/icons/quick.png': ranged(png(16, 16), { ...pngType, ...star }),
      '/img/quick.png': ranged(png(20, 10), { ...pngType, ...star }),
    },
  });
  ctx.p = await startProbing({ ENRICH_BUDGET_MS: String(BUDGET_MS) });
});
budget.after(async (ctx) => {
  await ctx.p.close();
  await ctx.up.close();
});

for (const [name, path, image] of [
  ['stalled headers', '/slow-image', { type: 'image/png', width: null, height: null }],
  ['a body that stops', '/drip-image', { type: null, width: null, height: null }],
] as const) {
  budget(
    `${name}: answered when the budget ends, without the image that comes later; fields as tagged, no cors_safe; later requests answered`,
    async ({ up, p }) => {
      const probesBefore = p.probes.length;
      const imagePath = path === '/slow-image' ? '/img/stall.png' : '/img/drip.png';
      const res = await p.svc.request(q(up.url(path).href));
      assert.is(res.status, 200);
      // What the answer holds was settled before the image came: the service hung up on it, and its
      // probe ended as a timeout. Had the answer waited for the image, it would carry 3×3 and cors_safe.
      const { url: _url, ...fields } = res.json.image;
      assert.equal(fields, { ...image, size: null });
      assert.is(await up.requests.filter((r) => r.path === imagePath).at(-1)!.outcome, 'closed early');
      assert.ok(p.probes.slice(probesBefore).some(([kind, outcome]) => kind === 'image' && outcome === 'timeout'));
      if (path === '/slow-image') {
        // The favicon's probe was quick: what finished within the budget stays (the answer did wait for it).
        assert.equal(res.json.favicon, { url: `${up.origin}/icons/quick.png`, type: 'image/png', width: 16, height: 16, size: null, cors_safe: true });
      } else {
        // The /favicon.ico fallback was probed (404) before the answer: its url is dropped.
        assert.is(res.json.favicon.url, null);
      }
      const next = await p.svc.request(q(up.url('/ok').href + `?after=${path}`));
      assert.is(next.status, 200);
      assert.equal(next.json.image, { url: `${up.origin}/img/quick.png`, type: 'image/png', width: 20, height: 10, size: null, cors_safe: true });
    },
  );
}

budget('the probe of a stalled image is cut when the budget ends (the upstream sees it closed)', async ({ up, p }) => {
  await p.svc.request(q(up.url('/slow-image').href + '?again'));
  const stalled = up.requests.filter((r) => r.path === '/img/stall.png');
  assert.ok(stalled.length >= 1);
  assert.is(await stalled.at(-1)!.outcome, 'closed early');
  assert.ok(p.probes.some(([kind, outcome]) => kind === 'image' && outcome === 'timeout'));
});

budget.run();

// ---- The address guard -----------------------------------------------------------------------

// As test/metadata/attacks.test.ts: ALLOW_PRIVATE_NETWORKS=false, the site is `site.test` on
// 127.0.0.1, only 127.0.0.1 counts as public; a second server on 127.0.0.2 stands for the inside.
const guard = suite<{ site: Upstream; inside: Upstream; p: Probing }>('probes and the address guard');

guard.before(async (ctx) => {
  ctx.inside = await startUpstream({ host: '127.0.0.2', routes: { '*': ranged(png(99, 99), { ...pngType, ...star }) } });
  const insideUrl = ctx.inside.url('/secret.png').href;
  ctx.site = await startUpstream({
    routes: {
      '/redirecting-image': page({ 'og:image': '/img/to-inside', 'og:image:width': '300' }),
      '/inside-image': page({ 'og:image': insideUrl, 'twitter:image': ctx.inside.url('/secret.png', 'inside.test').href }),
      '/public-image': page({ 'og:image': '/img/ok.png' }),
      '/img/to-inside': redirect(302, insideUrl),
      '/img/ok.png': ranged(png(7, 5), { ...pngType, ...star }),
    },
  });
  const lookup: LookupFunction = scriptedLookup((name) => (name === 'site.test' ? ['127.0.0.1'] : name === 'inside.test' ? ['127.0.0.2'] : null));
  ctx.p = await startProbing(
    { ALLOW_PRIVATE_NETWORKS: 'false' },
    { resolver: lookupResolver(lookup), isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) },
  );
});
guard.after(async (ctx) => {
  await ctx.p.close();
  await ctx.site.close();
  await ctx.inside.close();
});

guard('an image that redirects to a private address gets no probe result, and nothing reaches it', async ({ site, inside, p }) => {
  const res = await p.svc.request(q(site.url('/redirecting-image', 'site.test').href));
  assert.is(res.status, 200);
  assert.equal(res.json.image, { url: site.url('/img/to-inside', 'site.test').href, type: null, width: 300, height: null, size: null });
  assert.is(site.hits('/img/to-inside'), 1, 'the redirect was asked for');
  assert.is(inside.connections, 0, 'the private address was never dialled');
});

guard('image URLs naming a private address or a name resolving to one get no probe result', async ({ site, inside, p }) => {
  const og = await p.svc.request(q(site.url('/inside-image', 'site.test').href));
  const twitter = await p.svc.request(q(site.url('/inside-image', 'site.test').href, { prefer: 'twitter' }));
  assert.equal(og.json.image, { url: inside.url('/secret.png').href, type: null, width: null, height: null, size: null });
  assert.equal(twitter.json.image, { url: inside.url('/secret.png', 'inside.test').href, type: null, width: null, height: null, size: null });
  assert.is(inside.connections, 0);
});

guard('a public image on the same guarded service is probed (the guard is not blocking everything)', async ({ site, p }) => {
  const res = await p.svc.request(q(site.url('/public-image', 'site.test').href));
  assert.equal(res.json.image, { url: site.url('/img/ok.png', 'site.test').href, type: 'image/png', width: 7, height: 5, size: null, cors_safe: true });
  // The site has no /favicon.ico: the fallback is dropped.
  assert.equal(res.json.favicon, { url: null, type: null, width: null, height: null, size: null });
});

guard.run();
