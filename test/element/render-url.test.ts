// <linkpeek-preview data-url>: fetches Metadata from the running service, which fetches a local
// upstream page. The test page lives on another origin than the service, like a real
// embed, so CORS and "the origin component.js was loaded from" are exercised for real.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream, type UpstreamRoute } from './upstream-fixture.js';

const SLOW_MS = 1000;

function articleHtml(origin: string, title: string): string {
  return `<!doctype html><html><head>
<title>${title} (HTML title)</title>
<meta property="og:title" content="${title}">
<meta property="og:description" content="Where the river meets the sea: a walk along the estuary at dawn, with notes on the birds.">
<meta property="og:image" content="${origin}/estuary.png">
<meta property="og:image:alt" content="Mud flats at low tide">
<link rel="icon" href="${origin}/icon.png">
</head><body><p>Article</p></body></html>`;
}

let browser: Browser;
let service: Service;
let upstream: Upstream;
let embedder: AssetServer;
let tab: TestPage;

test.before(async () => {
  // The upstream serves pages that name its own origin: routes are an object filled after start.
  const routes: Record<string, UpstreamRoute> = {
    '/estuary.png': { type: 'image/png', body: gradientPng(600, 314, [30, 64, 175], [244, 114, 182]) },
    '/icon.png': { type: 'image/png', body: gradientPng(32, 32, [5, 150, 105], [253, 224, 71]) },
    '/gone': { type: 'text/html', body: '<title>gone</title>', status: 404 },
  };
  [browser, service, upstream] = await Promise.all([launchBrowser(), startService(), startUpstream(routes)]);
  routes['/estuary'] = { type: 'text/html; charset=utf-8', body: articleHtml(upstream.origin, 'Estuary at dawn') };
  routes['/second'] = { type: 'text/html; charset=utf-8', body: articleHtml(upstream.origin, 'A second article') };
  routes['/slow'] = { type: 'text/html; charset=utf-8', body: articleHtml(upstream.origin, 'Slow article'), delayMs: SLOW_MS };
  routes['/slow-plain'] = {
    type: 'text/html; charset=utf-8',
    body: '<!doctype html><title>A page without an image</title><meta name="description" content="Only words here, and a favicon.">',
    delayMs: SLOW_MS,
  };
  // The head of PerimeterX's block page, which the service answers as a bot check.
  routes['/blocked'] = {
    type: 'text/html; charset=utf-8',
    status: 403,
    body: '<!doctype html><head><meta name="description" content="px-captcha"><title>Access to this page has been denied</title></head><body></body>',
  };
  embedder = await startAssetServer({
    pages: {
      // Loads the element from the service: the API is wherever component.js came from.
      '/embed': testPageHtml(`${service.baseUrl}/component.js`),
      // Loads the element from this server (no API here): only data-endpoint reaches one.
      '/local': testPageHtml('/component.js'),
    },
  });
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), embedder?.close()]);
});

async function freshPage(path: '/embed' | '/local' = '/embed'): Promise<TestPage> {
  tab ??= await openPage(browser);
  await tab.reset(`${embedder.baseUrl}${path}`);
  return tab;
}

const metadataRequests = (t: TestPage) => t.requested.filter((url) => url.includes('/v1/metadata'));
const apiUrl = (base: string, page: string) => `${base}/v1/metadata?url=${encodeURIComponent(page)}`;

test('renders a local upstream page through the running service, calling the origin component.js came from', async () => {
  const { page } = await freshPage();
  const target = `${upstream.origin}/estuary`;
  await mount(page, { 'data-url': target });
  await waitForState(page, 'ready');
  await page.waitForFunction(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    return [...root.querySelectorAll('img')].every((img) => img.complete && img.naturalWidth > 0);
  });
  const card = await readCard(page);
  assert.is(card.title, 'Estuary at dawn');
  assert.is(card.description, 'Where the river meets the sea: a walk along the estuary at dawn, with notes on the birds.');
  assert.is(card.href, target);
  assert.is(card.imageSrc, `${upstream.origin}/estuary.png`);
  assert.is(card.imageAlt, '', 'decorative, whatever og:image:alt says');
  assert.is(card.faviconSrc, `${upstream.origin}/icon.png`);
  assert.is(card.host, '127.0.0.1');
  // docs/SPEC.md SafetyTag: an IP address as URL is suspicious_domain; the badge shows it end to end.
  assert.is(card.badge, 'Suspicious site');
  assert.not.ok(card.mediaBlurred);
  // One API call, cross-origin, to the service (not to the embedding page's origin).
  assert.equal(metadataRequests(tab), [apiUrl(service.baseUrl, target)]);
  await snapshot(page, 'data-url-ready');
});

test('loading: a skeleton with aria-busy while the API works; the link already works', async () => {
  const { page } = await freshPage();
  const target = `${upstream.origin}/slow?case=loading`;
  await mount(page, { 'data-url': target });
  await waitForState(page, 'loading');
  const loading = await readCard(page);
  assert.is(loading.ariaBusy, 'true');
  assert.is(loading.href, target);
  assert.is(loading.title, '');
  assert.is(loading.host, '127.0.0.1');
  assert.not.ok(loading.mediaHidden, 'the image area is a skeleton block');
  assert.is(loading.shape, 'banner', "the skeleton has the banner card's shape, the most common one");
  const skeleton = await page.evaluate(() => {
    const title = document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!;
    const style = getComputedStyle(title);
    return { height: title.getBoundingClientRect().height, animation: style.animationName };
  });
  assert.ok(skeleton.height > 10, 'the empty title is drawn as a bar');
  assert.is(skeleton.animation, 'p');
  await snapshot(page, 'loading');
  // prefers-reduced-motion: the skeleton stops pulsing.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const still = await page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!).animationName);
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  assert.is(still, 'none');
  await waitForState(page, 'ready', 'preview', SLOW_MS + 5000);
  assert.is((await readCard(page)).title, 'Slow article');
});

test('error: a page the service cannot fetch (422) is a plain link (host and path) with a short reason', async () => {
  const { page } = await freshPage();
  const target = `${upstream.origin}/gone`;
  await mount(page, { 'data-url': target });
  await waitForState(page, 'error');
  const card = await readCard(page);
  assert.is(card.title, `${new URL(upstream.origin).host}/gone`);
  assert.is(card.href, target);
  assert.is(card.description, 'The page answered with an error.');
  assert.is(card.host, '');
  assert.ok(card.cover, 'the frame shows the cover: the error card keeps the height');
  assert.is(card.ariaBusy, 'false');
  await snapshot(page, 'error');
  const [popup] = await Promise.all([page.context().waitForEvent('page'), page.locator('#preview').click()]);
  await popup.waitForLoadState();
  assert.is(popup.url(), target);
  await popup.close();
});

test('error: a site that refuses the connection says it could not be reached', async () => {
  const { page } = await freshPage();
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}/`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await mount(page, { 'data-url': target });
  await waitForState(page, 'error');
  const card = await readCard(page);
  assert.is(card.title, new URL(target).host);
  assert.is(card.description, 'The site could not be reached.');
  assert.is(card.href, target);
});

test('error: a bot check says so in plain words, and the card stays a link to the page', async () => {
  const { page } = await freshPage();
  const target = `${upstream.origin}/blocked`;
  await mount(page, { 'data-url': target });
  await waitForState(page, 'error');
  const card = await readCard(page);
  assert.is(card.title, `${new URL(upstream.origin).host}/blocked`);
  assert.is(card.description, 'The site blocked the preview with a bot check.');
  assert.is(card.href, target);
});

test("loading: a card without an image ends at the banner skeleton's height, its frame a cover", async () => {
  const { page } = await freshPage();
  await mount(page, { 'data-url': `${upstream.origin}/slow-plain` });
  await waitForState(page, 'loading');
  const height = (part: string) =>
    page.evaluate((part) => document.getElementById('preview')!.shadowRoot!.querySelector(`[part=${part}]`)!.getBoundingClientRect().height, part);
  const skeleton = await height('card');
  await waitForState(page, 'ready', 'preview', SLOW_MS + 5000);
  const card = await readCard(page);
  assert.is(card.title, 'A page without an image');
  assert.ok(card.cover);
  assert.is(await height('card'), skeleton);
});

// Each test asks for its own ?case= so neither the service's cache nor the browser's (the
// answer is cacheable for 12 h) turns a slow page into a fast one.

test('a removed element cancels its request', async () => {
  const { page } = await freshPage();
  const target = `${upstream.origin}/slow?case=removed`;
  const failed = page.waitForEvent('requestfailed', { predicate: (r) => r.url() === apiUrl(service.baseUrl, target), timeout: 5000 });
  const started = page.waitForRequest(apiUrl(service.baseUrl, target));
  await mount(page, { 'data-url': target });
  await started;
  await page.evaluate(() => document.getElementById('preview')!.remove());
  const request = await failed;
  assert.is(request.failure()?.errorText, 'net::ERR_ABORTED');
});

test('changing data-url aborts the first request and renders the second page', async () => {
  const { page } = await freshPage();
  const slow = `${upstream.origin}/slow?case=changed`;
  const second = `${upstream.origin}/second`;
  const failed = page.waitForEvent('requestfailed', { predicate: (r) => r.url() === apiUrl(service.baseUrl, slow), timeout: 5000 });
  await mount(page, { 'data-url': slow });
  await waitForState(page, 'loading');
  await page.evaluate((url) => document.getElementById('preview')!.setAttribute('data-url', url), second);
  assert.is((await failed).failure()?.errorText, 'net::ERR_ABORTED');
  await waitForState(page, 'ready');
  const card = await readCard(page);
  assert.is(card.title, 'A second article');
  assert.is(card.href, second);
  // The slow answer must never overwrite the newer one. The page asks for it again itself (joining
  // the service's fetch of it, or its cache): once that has come back, so would the first have,
  // and two frames later the card still shows the newer page.
  const late = await page.evaluate(
    async (url) => {
      const { title } = await (await fetch(url)).json();
      for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
      return title;
    },
    apiUrl(service.baseUrl, slow),
  );
  assert.is(late, 'Slow article');
  assert.is((await readCard(page)).title, 'A second article');
});

test('ten cards of one URL on a page make one metadata request, and every one shows the page', async () => {
  const { page } = await freshPage();
  const target = `${upstream.origin}/second?case=ten-cards`;
  for (let i = 0; i < 10; i++) await mount(page, { 'data-url': target }, `c${i}`);
  // Read down the page: each card asks when it nears the viewport.
  for (let i = 0; i < 10; i++) {
    await page.locator(`#c${i}`).scrollIntoViewIfNeeded();
    await waitForState(page, 'ready', `c${i}`);
  }
  for (let i = 0; i < 10; i++) assert.is((await readCard(page, `c${i}`)).title, 'A second article');
  assert.equal(metadataRequests(tab), [apiUrl(service.baseUrl, target)]);
});

test('data-endpoint sends the request to that API instead of the module origin', async () => {
  const { page } = await freshPage('/local');
  const target = `${upstream.origin}/estuary`;
  await mount(page, { 'data-url': target, 'data-endpoint': service.baseUrl }, 'base');
  await mount(page, { 'data-url': `${upstream.origin}/second`, 'data-endpoint': `${service.baseUrl}/v1/metadata` }, 'full');
  await waitForState(page, 'ready', 'base');
  await waitForState(page, 'ready', 'full');
  assert.is((await readCard(page, 'base')).title, 'Estuary at dawn');
  assert.is((await readCard(page, 'full')).title, 'A second article');
  assert.equal(metadataRequests(tab).sort(), [apiUrl(service.baseUrl, target), apiUrl(service.baseUrl, `${upstream.origin}/second`)].sort());
});

test('without data-endpoint, an element loaded from an origin without the API shows the error state', async () => {
  const { page } = await freshPage('/local');
  const target = `${upstream.origin}/estuary`;
  await mount(page, { 'data-url': target });
  await waitForState(page, 'error');
  assert.equal(metadataRequests(tab), [apiUrl(embedder.baseUrl, target)]);
  assert.is((await readCard(page)).href, target);
});

test.run();
