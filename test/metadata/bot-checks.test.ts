import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';

// A bot check is a failure, not a preview (src/walls/markers.ts): each vendor's challenge, answered
// by a real upstream on 127.0.0.1 with the status, headers and body its documentation or its users
// show, is a 422 `bot_check` naming the vendor, whatever the status; the same vendors' normal
// pages are previews. Every response is checked against openapi.yaml by the test client.

const html = { 'content-type': 'text/html; charset=UTF-8' };
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;
const botCheck = (service: string) => ({ code: 422, reason: 'bot_check', message: `The site showed a bot check (${service}) instead of the page.` });

// ---- Challenge pages --------------------------------------------------------------------------

/** Cloudflare's managed challenge: its orchestrate script is added by inline code in the body. */
const CLOUDFLARE_CHALLENGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow">
<meta name="viewport" content="width=device-width,initial-scale=1"></head><body><div class="main-wrapper" role="main">
<noscript>Enable JavaScript and cookies to continue</noscript></div><script>(function(){window._cf_chl_opt={cvId: '3',cType: 'managed'};
var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f3e2b1c4a9d1234';
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>`;

/** The same interstitial as Cloudflare serves it in another language: only its words change. */
const cloudflareIn = (lang: string, title: string) =>
  CLOUDFLARE_CHALLENGE.replace('lang="en-US"', `lang="${lang}"`).replace('<title>Just a moment...</title>', `<title>${title}</title>`);

const CLOUDFLARE_BLOCKED = `<!DOCTYPE html><html class="no-js" lang="en-US"><head><title>Attention Required! | Cloudflare</title>
<meta name="captcha-bypass" id="captcha-bypass" /><meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/cf.errors.css" /></head><body>
<h1>Sorry, you have been blocked</h1><h2>You are unable to access site.test</h2></body></html>`;

const AKAMAI_DENIED = `<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>
You don't have permission to access "http&#58;&#47;&#47;site&#46;test&#47;" on this server.<P>
Reference&#32;&#35;18&#46;4b2f1602&#46;1727400000&#46;1a2b3c4d
</BODY>
</HTML>`;

const AKAMAI_CHALLENGE = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><title>&nbsp;</title>
<script src="/_sec/cp_challenge/sec-4-4.js" async defer></script></head><body>
<div id="sec-container"><div id="sec-if-cpt-container" class="sec-if-cpt-container"></div></div></body></html>`;

const DATADOME_CAPTCHA = `<html lang="en"><head><title>site.test</title><style>#cmsg{animation: A 1.5s;}@keyframes A{0%{opacity:0;}99%{opacity:0;}100%{opacity:1;}}</style></head>
<body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'13C44BAB','t':'fe','host':'geo.captcha-delivery.com'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>`;

/** The same captcha as a page that loads its script in the head. */
const DATADOME_IN_HEAD = `<html><head><title>site.test</title><script src="https://ct.captcha-delivery.com/i.js"></script></head><body></body></html>`;

const PERIMETERX_BLOCK = `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="description" content="px-captcha">
    <title>Access to this page has been denied</title>
</head>
<body>
<script>
    window._pxAppId = 'PXaOtQIWNf';
    var pxCaptchaSrc = 'https://captcha.px-cdn.net/PXaOtQIWNf/captcha.js?a=c';
    var script = document.createElement('script');
    script.src = pxCaptchaSrc;
    document.head.appendChild(script);
</script>
</body>
</html>`;

/** An older PerimeterX template: no px-captcha meta, the title with a full stop. */
const PERIMETERX_OLD = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/><title>Access to this page has been denied.</title>
<link href="https://fonts.googleapis.com/css?family=Open+Sans:300" rel="stylesheet"/></head><body><div class="container"></div></body></html>`;

const PERIMETERX_CAPTCHA_SCRIPT = `<html><head><title>Please verify</title><script src="//captcha.px-cdn.net/PXaOtQIWNf/captcha.js?a=c&amp;m=0"></script></head><body></body></html>`;

const IMPERVA_INTERSTITIAL = `<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW"><meta name="format-detection" content="telephone=no">
<meta name="viewport" content="initial-scale=1.0"><meta http-equiv="X-UA-Compatible" content="IE=edge,chrome=1">
<script type="text/javascript" src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3"></script></head>
<body style="margin:0px;height:100%"><iframe id="main-iframe" src="/_Incapsula_Resource?SWUDNSAI=31&xinfo=51-29384756-0" frameborder=0 width="100%" height="100%">
Request unsuccessful. Incapsula incident ID: 1687000240661649450-106846605907789363</iframe></body></html>`;

const AWS_WAF_CHALLENGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title></title><script type="text/javascript">window.awsWafCookieDomainList = [];window.gokuProps = {"key":"AQIDAHjcYu","iv":"CgAHeDM","context":"x"};</script>
<script src="https://3f1e2d3c4b5a.edge.sdk.awswaf.com/3f1e2d3c4b5a/6c5b4a3f2e1d/challenge.js"></script></head>
<body><div id="challenge-container"></div><script>AwsWafIntegration.checkForceRefresh().then(function(){AwsWafIntegration.getToken().then(function(){window.location.reload(true);});});</script></body></html>`;

const cf = { ...html, server: 'cloudflare', 'cf-ray': '8f3e2b1c4a9d1234-LHR' };

/** name → [status, headers, body, the service the 422 names] */
const CHALLENGES: Record<string, [number, Record<string, string>, string, string]> = {
  'cloudflare-mitigated': [403, { ...cf, 'cf-mitigated': 'challenge' }, CLOUDFLARE_CHALLENGE, 'Cloudflare'],
  'cloudflare-title': [503, cf, CLOUDFLARE_CHALLENGE, 'Cloudflare'],
  'cloudflare-blocked': [403, cf, CLOUDFLARE_BLOCKED, 'Cloudflare'],
  'cloudflare-title-french': [403, cf, cloudflareIn('fr-FR', 'Un instant…'), 'Cloudflare'],
  'cloudflare-title-dutch': [403, cf, cloudflareIn('nl-NL', 'Even geduld...'), 'Cloudflare'],
  'cloudflare-title-polish': [403, cf, cloudflareIn('pl-PL', 'Cierpliwości...'), 'Cloudflare'],
  'akamai-denied': [403, { ...html, server: 'AkamaiGHost', 'mime-version': '1.0' }, AKAMAI_DENIED, 'Akamai'],
  'akamai-challenge': [200, html, AKAMAI_CHALLENGE, 'Akamai'],
  'akamai-challenge-428': [428, html, AKAMAI_CHALLENGE, 'Akamai'],
  'datadome-block': [403, { ...html, 'x-datadome': 'protected', 'set-cookie': 'datadome=AbC~123; Max-Age=31536000; Path=/' }, DATADOME_CAPTCHA, 'DataDome'],
  'datadome-json': [
    403,
    { 'content-type': 'application/json;charset=utf-8', 'x-datadome': 'protected', 'x-dd-b': '1' },
    '{"url":"https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA"}',
    'DataDome',
  ],
  'datadome-script': [200, html, DATADOME_IN_HEAD, 'DataDome'],
  'perimeterx-meta': [403, html, PERIMETERX_BLOCK, 'PerimeterX'],
  'perimeterx-title': [403, html, PERIMETERX_OLD, 'PerimeterX'],
  'perimeterx-script': [200, html, PERIMETERX_CAPTCHA_SCRIPT, 'PerimeterX'],
  'imperva-interstitial': [200, { ...html, 'x-cdn': 'Imperva', 'x-iinfo': '51-29384756-0 NNNY RT(1744568237689 43)' }, IMPERVA_INTERSTITIAL, 'Imperva'],
  'aws-waf-challenge': [202, { ...html, 'x-amzn-waf-action': 'challenge' }, AWS_WAF_CHALLENGE, 'AWS WAF'],
  'aws-waf-captcha': [405, { ...html, 'x-amzn-waf-action': 'captcha' }, AWS_WAF_CHALLENGE, 'AWS WAF'],
};

/** The challenges whose markers hold whatever the status: served again with a 200. */
const ANY_STATUS = Object.keys(CHALLENGES).filter((name) => !['datadome-block'].includes(name));

// ---- Normal pages behind the same services ----------------------------------------------------

const article = (title: string, head = '') =>
  `<html><head><title>${title}</title><meta property="og:title" content="${title}">${head}</head><body><p>Text</p></body></html>`;

const NORMAL: Record<string, [Record<string, string>, string, string]> = {
  // A page about Cloudflare's interstitial, quoting it.
  'just-a-moment-in-text': [
    html,
    article('Just a moment, a history of loading screens', '<meta name="description" content="Just a moment... is Cloudflare checking your browser.">').replace(
      '<p>Text</p>',
      '<p>Just a moment...</p>',
    ),
    'Just a moment, a history of loading screens',
  ],
  // Cloudflare-served, with the JavaScript Detections and Turnstile scripts real pages carry.
  'cloudflare-served': [
    { ...cf, 'set-cookie': '__cf_bm=abc; path=/; HttpOnly' },
    article(
      'Shop',
      '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script><script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async></script>',
    ),
    'Shop',
  ],
  'akamai-served': [{ ...html, server: 'AkamaiGHost', 'akamai-grn': '0.1' }, article('Weather'), 'Weather'],
  'datadome-protected': [
    { ...html, 'x-datadome': 'protected', 'set-cookie': 'datadome=AbC; Path=/' },
    article('News', '<script src="https://js.datadome.co/tags.js" async></script>'),
    'News',
  ],
  'perimeterx-protected': [html, article('Store', '<script src="//client.perimeterx.net/PXaOtQIWNf/main.min.js" async></script>'), 'Store'],
  'imperva-served': [
    { ...html, 'x-cdn': 'Imperva', 'x-iinfo': '10-1234 NNNN' },
    article('Bank', '<script src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3&ns=1"></script>'),
    'Bank',
  ],
  'aws-waf-sdk': [
    html,
    article('Tickets', '<script src="https://3f1e2d3c4b5a.edge.sdk.awswaf.com/3f1e2d3c4b5a/6c5b4a3f2e1d/challenge.js" defer></script>'),
    'Tickets',
  ],
  'titled-access-denied': [html, article('Access Denied'), 'Access Denied'],
  // Cloudflare-served pages whose titles begin with the interstitial's localised words.
  'cloudflare-un-instant': [cf, article('Un instant de grâce'), 'Un instant de grâce'],
  'cloudflare-even-geduld': [cf, article('Even geduld... de nieuwe website komt eraan'), 'Even geduld... de nieuwe website komt eraan'],
};

interface Ctx {
  up: Upstream;
  svc: Service;
}
const test = suite<Ctx>('bot checks are 422 bot_check, never previews');

const FAILURE_TTL_MS = 1000;
/** The cache's clock: it stands still unless a test moves it. */
const clock = { ms: Date.now() };

test.before(async (ctx) => {
  const routes: Record<string, ReturnType<typeof respond>> = {};
  for (const [name, [status, headers, body]] of Object.entries(CHALLENGES)) {
    routes[`/${name}`] = respond(status, body, headers);
    routes[`/200/${name}`] = respond(200, body, headers);
  }
  for (const [name, [headers, body]] of Object.entries(NORMAL)) routes[`/normal/${name}`] = respond(200, body, headers);
  ctx.up = await startUpstream({ routes });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', CACHE_FAILURE_TTL_MS: String(FAILURE_TTL_MS) }, { now: () => clock.ms });
});
test.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

for (const [name, [status, , , service]] of Object.entries(CHALLENGES)) {
  test(`${name}: a ${status} with the ${service} marker is bot_check naming ${service}`, async ({ up, svc }) => {
    const res = await svc.request(q(up.url(`/${name}`).href));
    assert.is(res.status, 422);
    assert.equal(res.json, botCheck(service));
    assert.is(res.headers.get('cache-control'), 'no-store');
  });
}

test('every marker that does not depend on the status holds when the challenge is served with a 200', async ({ up, svc }) => {
  for (const name of ANY_STATUS) {
    const res = await svc.request(q(up.url(`/200/${name}`).href));
    assert.equal([res.status, res.json], [422, botCheck(CHALLENGES[name]![3])], name);
  }
});

test("DataDome's X-DataDome on a 200 is a protected page, not a block", async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/200/datadome-block').href));
  assert.is(res.status, 200);
  assert.is(res.json.title, 'site.test');
});

for (const [name, [, , title]] of Object.entries(NORMAL)) {
  test(`a normal page (${name}) is a preview`, async ({ up, svc }) => {
    const res = await svc.request(q(up.url(`/normal/${name}`).href));
    assert.is(res.status, 200, JSON.stringify(res.json));
    assert.is(res.json.title, title);
  });
}

test('a challenge body under a status no vendor uses (404) stays http_status', async ({ svc }) => {
  const gone = await startUpstream({ routes: { '/': respond(404, CLOUDFLARE_CHALLENGE, cf) } });
  try {
    const res = await svc.request(q(gone.url('/').href));
    assert.equal([res.status, res.json], [422, { code: 422, reason: 'http_status', message: 'The site answered 404.' }]);
  } finally {
    await gone.close();
  }
});

test("a 428 without any marker (a site's own precondition error) stays http_status", async ({ svc }) => {
  const precondition = await startUpstream({
    routes: { '/': respond(428, '<html><head><title>Precondition Required</title></head><body></body></html>', html) },
  });
  try {
    const res = await svc.request(q(precondition.url('/').href));
    assert.equal([res.status, res.json], [422, { code: 422, reason: 'http_status', message: 'The site answered 428.' }]);
  } finally {
    await precondition.close();
  }
});

test('a bot check is remembered for CACHE_FAILURE_TTL_MS, then fetched again', async ({ up, svc }) => {
  const url = q(up.url('/cloudflare-mitigated?remembered').href);
  const first = await svc.request(url);
  const hits = up.hits('/cloudflare-mitigated');
  const second = await svc.request(url);
  assert.equal(second.json, first.json);
  assert.is(up.hits('/cloudflare-mitigated'), hits, 'answered from the failure cache');
  clock.ms += FAILURE_TTL_MS;
  assert.equal((await svc.request(url)).json, first.json);
  assert.is(up.hits('/cloudflare-mitigated'), hits, 'still remembered at its last millisecond');
  clock.ms += 1;
  const third = await svc.request(url);
  assert.equal([third.status, third.json], [422, botCheck('Cloudflare')]);
  assert.is(up.hits('/cloudflare-mitigated'), hits + 1, 'fetched again after the failure TTL');
});

test.run();
