// Images load directly; the element switches to /v1/cors-proxy on the API's origin when the
// direct load fails or would be mixed content, and shows the proxied bytes from a blob: URL. The
// proxy is the running service's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

let browser: Browser;
let service: Service;
let upstream: Upstream;
let plainPage: AssetServer;
let securePage: AssetServer;
let tab: TestPage;

test.before(async () => {
  [browser, service, upstream] = await Promise.all([
    launchBrowser(),
    startService(),
    startUpstream({
      '/open.png': { type: 'image/png', body: gradientPng(600, 314, [15, 118, 110], [250, 250, 249]) },
      '/hotlinked.png': { type: 'image/png', body: gradientPng(600, 314, [124, 58, 237], [252, 211, 77]), refuseBrowsers: true },
      '/hotlinked-icon.png': { type: 'image/png', body: gradientPng(32, 32, [220, 38, 38], [250, 204, 21]), refuseBrowsers: true },
      '/mixed.png': { type: 'image/png', body: gradientPng(600, 314, [3, 105, 161], [134, 239, 172]) },
      '/not-an-image.png': { type: 'text/html', body: '<p>nope</p>' },
      '/slow': { type: 'text/html', body: '<title>Slow</title>', delayMs: 6000 },
    }),
  ]);
  const pages = { '/embed': testPageHtml(`${service.baseUrl}/component.js`) };
  [plainPage, securePage] = await Promise.all([startAssetServer({ pages }), startAssetServer({ pages, tls: true })]);
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), plainPage?.close(), securePage?.close()]);
});

const proxyUrl = (image: string) => `${service.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(image)}`;

async function renderImages(page: TestPage['page'], image: string, favicon: string) {
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { image: { url: image }, favicon: { url: favicon } })) });
  await waitForState(page, 'ready');
  await page.waitForFunction(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    return [...root.querySelectorAll('img')].every((img) => img.hidden || (img.complete && img.naturalWidth > 0) || img.closest('[hidden]'));
  });
  return readCard(page);
}

test('an image that loads directly is not proxied', async () => {
  tab ??= await openPage(browser, { ignoreHTTPSErrors: true });
  await tab.reset(`${plainPage.baseUrl}/embed`);
  const card = await renderImages(tab.page, `${upstream.origin}/open.png`, `${upstream.origin}/icon-none.png`);
  assert.is(card.imageSrc, `${upstream.origin}/open.png`);
  assert.ok(card.imageLoaded);
  assert.equal(upstream.hits('/open.png'), { browser: 1, other: 0 });
});

test('a direct load that fails (hotlink protection) switches to /v1/cors-proxy on the API origin; a favicon that fails hides, spending none of the budget', async () => {
  tab ??= await openPage(browser, { ignoreHTTPSErrors: true });
  await tab.reset(`${plainPage.baseUrl}/embed`);
  const image = `${upstream.origin}/hotlinked.png`;
  const icon = `${upstream.origin}/hotlinked-icon.png`;
  const card = await renderImages(tab.page, image, icon);
  assert.match(card.imageSrc ?? '', /^blob:/);
  assert.ok(card.imageLoaded, 'the proxied image is shown');
  assert.ok(tab.requested.includes(proxyUrl(image)), 'the image through the proxy');
  assert.equal(upstream.hits('/hotlinked.png'), { browser: 1, other: 1 }, 'one refused direct load, one proxy fetch');
  await tab.page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector<HTMLElement>('[part=favicon]')!.hidden);
  assert.ok((await readCard(tab.page)).faviconHidden);
  assert.not.ok(tab.requested.includes(proxyUrl(icon)), 'the favicon not through the proxy');
  assert.equal(upstream.hits('/hotlinked-icon.png'), { browser: 1, other: 0 });
  await snapshot(tab.page, 'proxy-fallback');
});

test('an http: image on an https: page goes straight to the proxy (no mixed content)', async () => {
  tab ??= await openPage(browser, { ignoreHTTPSErrors: true });
  await tab.reset(`${securePage.baseUrl}/embed`);
  assert.is(await tab.page.evaluate(() => location.protocol), 'https:');
  const image = `${upstream.origin}/mixed.png`;
  const card = await renderImages(tab.page, image, `${upstream.origin}/icon-none.png`);
  assert.match(card.imageSrc ?? '', /^blob:/);
  assert.ok(card.imageLoaded);
  assert.ok(tab.requested.includes(proxyUrl(image)));
  assert.equal(upstream.hits('/mixed.png'), { browser: 0, other: 1 }, 'never requested directly');
});

test('when direct and proxy both fail, the image frame shows the cover (nothing below moves) and the card stays usable', async () => {
  tab ??= await openPage(browser, { ignoreHTTPSErrors: true });
  await tab.reset(`${plainPage.baseUrl}/embed`);
  const image = `${upstream.origin}/not-an-image.png`;
  await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { image: { url: image } })) });
  await waitForState(tab.page, 'ready');
  await tab.page.waitForFunction(() => !document.getElementById('preview')!.shadowRoot!.querySelector('[part=image]')!.hasAttribute('src'));
  const card = await readCard(tab.page);
  assert.ok(card.cover && !card.mediaHidden);
  assert.is(card.imageSrc, null);
  assert.is(card.title, 'Tide pools of the northern coast');
  assert.ok(tab.requested.includes(proxyUrl(image)), 'the proxy was tried');
});

/** A screenshot of the card `id` alone (no margin). */
const pixels = (page: TestPage['page'], id: string) => page.locator(`#${id}`).screenshot({ animations: 'disabled' });

/** Where every piece of card `id` is drawn (relative to the card) and whether it shows: what the reader sees of its layout. */
const layoutOf = (page: TestPage['page'], id: string) =>
  page.evaluate((id) => {
    const root = document.getElementById(id)!.shadowRoot!;
    const card = root.querySelector('[part=card]')!.getBoundingClientRect();
    return [...root.querySelectorAll<HTMLElement>('[part]')].map((el) => {
      const box = el.getBoundingClientRect();
      const shown = getComputedStyle(el).visibility == 'visible' && box.width > 0;
      return `${el.getAttribute('part')} ${shown ? [box.x - card.x, box.y - card.y, box.width, box.height].map(Math.round).join(',') : 'not shown'} ${getComputedStyle(el, '::before').content}`;
    });
  }, id);

test('a failed image, banner or thumbnail, collapses to the text card: laid out exactly as the card without an image', async () => {
  tab ??= await openPage(browser, { ignoreHTTPSErrors: true });
  await tab.reset(`${plainPage.baseUrl}/embed`);
  const failing = (width: number, height: number) => ({ url: `${upstream.origin}/not-an-image.png`, width, height });
  const cards: [string, Partial<ReturnType<typeof metadataFor>>][] = [
    ['none', { image: { url: null } }],
    ['failed-banner', { image: failing(1200, 630) }],
    ['failed-square', { image: failing(400, 400) }],
  ];
  for (const [id, overrides] of cards)
    await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { favicon: { url: null }, ...overrides })) }, id);
  for (const [id] of cards)
    await tab.page.waitForFunction((id) => document.getElementById(id)!.shadowRoot!.querySelector('[part=media]')!.classList.contains('n'), id);
  assert.is((await readCard(tab.page, 'failed-square')).shape, 'banner', 'the thumbnail gave way');
  const text = await layoutOf(tab.page, 'none');
  assert.ok(
    text.some((line) => line.startsWith('media ') && line.includes('"1"')),
    'the cover shows the initial',
  );
  assert.equal(await layoutOf(tab.page, 'failed-banner'), text);
  assert.equal(await layoutOf(tab.page, 'failed-square'), text);
  await snapshot(tab.page, 'failed-image-as-text-card', 'failed-square');
  await snapshot(tab.page, 'no-image-text-card', 'none');
});

test('the waiting card is visibly different from a failed one: a pulsing skeleton, no initial', async () => {
  tab ??= await openPage(browser, { ignoreHTTPSErrors: true });
  await tab.reset(`${plainPage.baseUrl}/embed`);
  // Waiting: a data-url card whose page takes 6 s to answer the service.
  await mount(tab.page, { 'data-url': `${upstream.origin}/slow` }, 'waiting');
  await mount(
    tab.page,
    { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { image: { url: `${upstream.origin}/not-an-image.png` }, favicon: { url: null } })) },
    'failed',
  );
  await waitForState(tab.page, 'loading', 'waiting');
  await tab.page.waitForFunction(() => document.getElementById('failed')!.shadowRoot!.querySelector('[part=media]')!.classList.contains('n'));
  const look = (id: string) =>
    tab.page.evaluate((id) => {
      const media = document.getElementById(id)!.shadowRoot!.querySelector('[part=media]')!;
      return { pulse: getComputedStyle(media).animationName, initial: getComputedStyle(media, '::before').content };
    }, id);
  assert.equal(await look('waiting'), { pulse: 'p', initial: 'none' });
  // The cover's initial: the site's, here its address 127.0.0.1.
  assert.equal(await look('failed'), { pulse: 'none', initial: '"1" / ""' });
  assert.not.ok((await pixels(tab.page, 'waiting')).equals(await pixels(tab.page, 'failed')));
  await snapshot(tab.page, 'waiting-card', 'waiting');
  await snapshot(tab.page, 'failed-card', 'failed');
});

test.run();
