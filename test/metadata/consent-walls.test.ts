import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { redirect, respond, startUpstream, type Route, type Upstream } from '../helpers/upstream.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';

// A redirect that ends on a consent or login page (src/walls/markers.ts CONSENT_PAGES) is a 422
// `consent_wall` naming the host, not a preview of that page. The sites' real names are served by
// the fixture on 127.0.0.1, resolved by the world's nameserver (DNS_SERVERS): nothing leaves
// loopback. Every response is checked against openapi.yaml by the test client. The URLs carry the
// fixture's port, so none matches oembed.com's schemes and no provider's oEmbed stands in for the
// wall (src/oembed/embed-lookup.ts): the 422 is the answer.

const html = { 'content-type': 'text/html; charset=utf-8' };
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;
const wall = (page: 'consent' | 'login', host: string) => ({
  code: 422,
  reason: 'consent_wall',
  message: `The site sent LinkPeek to a ${page} page (${host}) instead of the page.`,
});

const NAMES = [
  'www.youtube.com',
  'consent.youtube.com',
  'www.google.de',
  'consent.google.de',
  'finance.yahoo.com',
  'consent.yahoo.com',
  'guce.yahoo.com',
  'www.linkedin.com',
  'www.instagram.com',
  'www.facebook.com',
  'm.facebook.com',
  'www.aol.com',
  'guce.aol.com',
  'news.test',
];

interface Ctx {
  dns: WorldDns;
  up: Upstream;
  svc: Service;
  at: (host: string, path: string) => string;
}
const test = suite<Ctx>('consent and login pages reached by a redirect are 422 consent_wall');

test.before(async (ctx) => {
  ctx.dns = await startWorldDns();
  for (const name of NAMES) ctx.dns.set(name, { A: ['127.0.0.1'] });
  // One fixture serves every name (the Host differs, the port is the same): paths tell the sites
  // apart. A redirect names the fixture's port, known once it listens.
  const to =
    (status: number, host: string, path: string): Route =>
    (req, res) =>
      redirect(status, ctx.up.url(path, host).href)(req, res);
  const page = (title: string) => respond(200, `<html><head><title>${title}</title></head><body></body></html>`, html);
  const routes: Record<string, Route> = {
    '/watch': to(302, 'consent.youtube.com', '/m?continue=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DdQw4w9WgXcQ'),
    '/m': page('Before you continue to YouTube'),
    '/maps': to(302, 'consent.google.de', '/ml?continue=https://www.google.de/maps'),
    '/ml': page('Bevor Sie zu Google weitergehen'),
    '/quote/NQ=F': to(302, 'consent.yahoo.com', '/v2/collectConsent?sessionId=3_cc-session_6b0b0161'),
    '/v2/collectConsent': page('Yahoo is part of the Yahoo family of brands'),
    '/in/someone': to(302, 'www.linkedin.com', '/authwall?trk=public_profile&sessionRedirect=x'),
    '/authwall': page('Sign Up | LinkedIn'),
    '/p/CJ_qZYbF0A-/': to(302, 'www.instagram.com', '/accounts/login/?next=%2Fp%2FCJ_qZYbF0A-%2F'),
    '/accounts/login/': page('Login • Instagram'),
    '/groups/walkers/posts/1234567890/': to(302, 'www.facebook.com', '/login/?next=https%3A%2F%2Fwww.facebook.com%2Fgroups%2Fwalkers%2Fposts%2F1234567890%2F'),
    '/login/': page('Log in to Facebook'),
    '/story.php': to(302, 'm.facebook.com', '/login.php?next=https%3A%2F%2Fm.facebook.com%2Fstory.php%3Fstory_fbid%3D1'),
    '/login.php': page('Log in to Facebook'),
    '/fb-loginradius': to(301, 'www.facebook.com', '/loginradius'),
    '/loginradius': page('LoginRadius | Facebook'),
    '/news/some-story-123.html': to(302, 'guce.aol.com', '/consent?gcrumb=Kx2PbAA&brandType=eu&done=https%3A%2F%2Fwww.aol.com%2Fnews%2F'),
    '/consent': page('AOL is part of the Yahoo family of brands'),
    '/terms-link': to(301, 'guce.yahoo.com', '/terms?locale=en-US'),
    '/terms': page('Yahoo Terms of Service'),
    '/old-article': to(301, 'news.test', '/article'),
    '/article': page('An article'),
  };
  ctx.up = await startUpstream({ routes });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', DNS_SERVERS: ctx.dns.server });
  ctx.at = (host, path) => ctx.up.url(path, host).href;
});
test.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
  await ctx.dns.close();
});

const CASES: Array<[string, string, string, ReturnType<typeof wall>]> = [
  ['YouTube to consent.youtube.com', 'www.youtube.com', '/watch?v=dQw4w9WgXcQ', wall('consent', 'consent.youtube.com')],
  ["Google Maps to its country's consent host (consent.google.de)", 'www.google.de', '/maps', wall('consent', 'consent.google.de')],
  ['Yahoo Finance to consent.yahoo.com', 'finance.yahoo.com', '/quote/NQ=F', wall('consent', 'consent.yahoo.com')],
  ["a LinkedIn profile to LinkedIn's authwall", 'www.linkedin.com', '/in/someone', wall('login', 'www.linkedin.com')],
  ["an Instagram post to Instagram's login", 'www.instagram.com', '/p/CJ_qZYbF0A-/', wall('login', 'www.instagram.com')],
  ["a Facebook group post to Facebook's login (/login/)", 'www.facebook.com', '/groups/walkers/posts/1234567890/', wall('login', 'www.facebook.com')],
  ["a Facebook story on m.facebook.com to Facebook's login.php", 'm.facebook.com', '/story.php?story_fbid=1', wall('login', 'm.facebook.com')],
  ["an AOL article to AOL's consent host (guce.aol.com/consent)", 'www.aol.com', '/news/some-story-123.html', wall('consent', 'guce.aol.com')],
];

for (const [name, host, path, expected] of CASES) {
  test(`${name} is consent_wall`, async ({ svc, at }) => {
    const res = await svc.request(q(at(host, path)));
    assert.is(res.status, 422);
    assert.equal(res.json, expected);
    assert.is(res.headers.get('cache-control'), 'no-store');
  });
}

test('a consent page asked for directly is the page the caller wanted: a preview', async ({ svc, at }) => {
  const res = await svc.request(q(at('consent.youtube.com', '/m?continue=x')));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'Before you continue to YouTube');
});

test("a redirect to a consent host's own documents (guce.yahoo.com/terms) is a preview", async ({ svc, at }) => {
  const res = await svc.request(q(at('finance.yahoo.com', '/terms-link')));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'Yahoo Terms of Service');
});

test('a redirect to a Facebook page whose name starts with login (/loginradius) is a preview', async ({ svc, at }) => {
  const res = await svc.request(q(at('www.facebook.com', '/fb-loginradius')));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'LoginRadius | Facebook');
});

test('a redirect to an ordinary page is a preview', async ({ svc, at }) => {
  const res = await svc.request(q(at('news.test', '/old-article')));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'An article');
});

test.run();
