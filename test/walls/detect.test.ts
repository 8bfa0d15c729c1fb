import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { scanHead } from '../../wasm-parser/index.js';
import { findBotCheck, findConsentWall, type AnswerEvidence } from '../../src/walls/detect.js';

// The detector's edges, on heads read by the real scanner: hosts are matched as hosts (a look-alike
// name is not the vendor), a consent page counts only at the end of a redirect, and a marker that
// needs the head never fires on headers alone.

const page = new URL('https://shop.test/item');
async function answer(head: string, headers: Record<string, string> = {}, status = 200): Promise<AnswerEvidence> {
  const { tags } = await scanHead(new TextEncoder().encode(`<html><head>${head}</head><body></body></html>`));
  return { status, headers, url: page, tags };
}

const hosts = suite('script markers match hosts, not strings');

hosts('the vendor host and its subdomains, written absolute or protocol-relative', async () => {
  for (const src of ['https://ct.captcha-delivery.com/c.js', '//geo.captcha-delivery.com/captcha/', 'https://captcha-delivery.com/i.js']) {
    assert.is(findBotCheck(await answer(`<script src="${src}"></script>`))?.service, 'DataDome', src);
  }
});

hosts('a look-alike host is not the vendor', async () => {
  for (const src of ['https://captcha-delivery.com.shop.test/c.js', 'https://notcaptcha-delivery.com/c.js', 'https://shop.test/captcha-delivery.com/c.js']) {
    assert.is(findBotCheck(await answer(`<script src="${src}"></script>`)), null, src);
  }
});

hosts('a path marker is read on the path the src resolves to, whatever its case', async () => {
  assert.is(findBotCheck(await answer('<script src="/_INCAPSULA_RESOURCE?SWJIYLWA=1"></script>'))?.service, 'Imperva');
  assert.is(findBotCheck(await answer('<script src="/static/_Incapsula_Resource.js"></script>')), null);
});

hosts("Cloudflare's detection script and Turnstile on a normal page are not markers", async () => {
  const head =
    '<title>Shop</title><script src="/cdn-cgi/challenge-platform/h/b/scripts/jsd/13c98df4ef2d/main.js"></script><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>';
  assert.is(findBotCheck(await answer(head, { server: 'cloudflare' })), null);
});
hosts.run();

const heads = suite('markers that need the head');

heads('a title marker waits for the head, and needs its header', async () => {
  const withHead = await answer('<title>Just a moment...</title>', { server: 'cloudflare' }, 403);
  assert.is(findBotCheck({ ...withHead, tags: null }), null, 'headers alone');
  assert.is(findBotCheck(withHead)?.service, 'Cloudflare');
  assert.is(findBotCheck(await answer('<title>Just a moment...</title>', { server: 'nginx' }, 403)), null, 'another server');
});

heads("the interstitial's localised titles count with Cloudflare's server header, and only the whole title", async () => {
  for (const title of ['Un instant…', 'Un instant...', 'Even geduld...', 'Cierpliwości...', 'CIERPLIWOŚCI…']) {
    assert.is(findBotCheck(await answer(`<title>${title}</title>`, { server: 'cloudflare' }, 403))?.service, 'Cloudflare', title);
    assert.is(findBotCheck(await answer(`<title>${title}</title>`, { server: 'nginx' }, 403)), null, `${title} from another server`);
  }
  for (const title of ['Un instant de grâce', 'Even geduld', 'Cierpliwości... i nadziei']) {
    assert.is(findBotCheck(await answer(`<title>${title}</title>`, { server: 'cloudflare' })), null, title);
  }
});

heads('a real article titled "Just a moment..." and served by Cloudflare is not a bot check', async () => {
  const article =
    '<title>Just a moment...</title><meta property="og:type" content="article">' +
    '<meta property="og:description" content="A short story about waiting."><meta property="article:published_time" content="2026-11-20T08:00:00Z">';
  assert.is(findBotCheck(await answer(article, { server: 'cloudflare' })), null);
});

heads('each piece of article metadata alone vetoes a title marker; an empty one does not', async () => {
  const title = '<title>Just a moment...</title>';
  for (const meta of [
    '<meta property="og:type" content="Article">',
    '<meta property="og:description" content="About waiting.">',
    '<meta name="article:published_time" content="2026-11-20">',
  ]) {
    assert.is(findBotCheck(await answer(title + meta, { server: 'cloudflare' }, 403)), null, meta);
  }
  for (const meta of [
    '<meta property="og:type" content="website">',
    '<meta property="og:description" content=" ">',
    '<meta name="robots" content="noindex">',
  ]) {
    assert.is(findBotCheck(await answer(title + meta, { server: 'cloudflare' }, 403))?.service, 'Cloudflare', meta);
  }
});

heads('article metadata does not veto a header marker', async () => {
  const article = '<title>Just a moment...</title><meta property="og:type" content="article">';
  assert.is(findBotCheck(await answer(article, { server: 'cloudflare', 'cf-mitigated': 'challenge' }, 403))?.service, 'Cloudflare');
});

heads('a title is matched after whitespace is collapsed, entities decoded', async () => {
  assert.is(findBotCheck(await answer('<title>\n  Just a\tmoment&#46;&#46;&#46;\n</title>', { server: 'cloudflare' }))?.service, 'Cloudflare');
});
heads.run();

const consent = suite('consent pages count only at the end of a redirect');

consent('a look-alike of a consent host is not one', () => {
  const from = new URL('https://www.google.de/maps');
  assert.is(findConsentWall(from, new URL('https://consent.google.de.shop.test/ml')), null);
  assert.is(findConsentWall(from, new URL('https://myconsent.google.de/ml')), null);
  assert.is(findConsentWall(from, new URL('https://consent.google.com.au/ml'))?.page, 'consent');
});

consent("Facebook's login is /login and /login.php on its own hosts, not a page named login-something", () => {
  const from = new URL('https://www.facebook.com/groups/walkers/posts/1/');
  for (const to of [
    'https://www.facebook.com/login/?next=x',
    'https://www.facebook.com/login',
    'https://m.facebook.com/login.php?next=x',
    'https://web.facebook.com/login/device-based/regular/login/',
  ]) {
    assert.is(findConsentWall(from, new URL(to))?.page, 'login', to);
  }
  for (const to of [
    'https://www.facebook.com/loginradius',
    'https://www.facebook.com/login.phpx',
    'https://www.facebook.com/groups/login/',
    'https://facebook.com.shop.test/login/',
  ]) {
    assert.is(findConsentWall(from, new URL(to)), null, to);
  }
});

consent("AOL's consent host is a wall at /consent, not at its GPC frame", () => {
  const from = new URL('https://www.aol.com/news/');
  assert.is(findConsentWall(from, new URL('https://guce.aol.com/consent?gcrumb=x'))?.page, 'consent');
  assert.is(findConsentWall(from, new URL('https://guce.aol.com/gpc/')), null);
});

consent('a URL that differs only in its fragment was not redirected', () => {
  assert.is(findConsentWall(new URL('https://consent.youtube.com/m#top'), new URL('https://consent.youtube.com/m')), null);
});
consent.run();
