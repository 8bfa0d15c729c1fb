// How the card is laid out: one banner frame whatever the image's shape (a wide image covers it,
// another is shown whole), the compact layout's thumbnail that stays square, the new-tab arrow, the favicon's tile in dark mode, and the
// error state as one plain link.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

let browser: Browser;
let assets: AssetServer;
let upstream: Upstream;
let tab: TestPage;

test.before(async () => {
  [browser, assets, upstream] = await Promise.all([
    launchBrowser(),
    startAssetServer(),
    startUpstream({
      '/wide.png': { type: 'image/png', body: gradientPng(600, 314, [14, 116, 144], [250, 204, 21]) },
      '/square.png': { type: 'image/png', body: gradientPng(300, 300, [67, 56, 202], [236, 72, 153]) },
      '/portrait.png': { type: 'image/png', body: gradientPng(200, 600, [190, 18, 60], [250, 204, 21]) },
      '/white-icon.png': { type: 'image/png', body: gradientPng(32, 32, [255, 255, 255], [255, 255, 255]) },
    }),
  ]);
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close(), upstream?.close()]);
});

async function freshPage(colorScheme: 'light' | 'dark' = 'light'): Promise<TestPage['page']> {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`, colorScheme);
  return tab.page;
}

const image = (file: string, width: number | null, height: number | null) => ({ url: `${upstream.origin}/${file}`, width, height });

/** Renders `overrides` and waits until the image has loaded (the loaded size may change the shape). */
async function render(page: TestPage['page'], overrides: Partial<DataMeta>, id = 'preview', attributes: Record<string, string> = {}) {
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, overrides)), ...attributes }, id);
  await waitForState(page, 'ready', id);
  await page.waitForFunction((id) => {
    const img = document.getElementById(id)!.shadowRoot!.querySelector('img')!;
    return img.complete && img.naturalWidth > 0;
  }, id);
  return readCard(page, id);
}

const box = (page: TestPage['page'], id: string, part: string) =>
  page.evaluate(({ id, part }) => document.getElementById(id)!.shadowRoot!.querySelector(`[part=${part}]`)!.getBoundingClientRect().toJSON() as DOMRect, {
    id,
    part,
  });

test('compact layout: a portrait image stays a square thumbnail, cropped, and does not stretch the card', async () => {
  const page = await freshPage();
  await render(page, { image: image('portrait.png', 200, 600) }, 'preview', { 'data-layout': 'compact' });
  const media = await box(page, 'preview', 'media');
  const card = await box(page, 'preview', 'card');
  assert.equal([Math.round(media.width), Math.round(media.height)], [104, 104]);
  assert.ok(card.height < 150, `the card is ${card.height}px tall`);
  const fit = await page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=image]')!).objectFit);
  assert.is(fit, 'cover');
  await snapshot(page, 'compact-portrait');
});

/** How the image sits in its frame: "cover" (cropped to 1.91:1) or "scale-down" (whole, never enlarged). */
const fitOf = (page: TestPage['page'], id = 'preview') =>
  page.evaluate((id) => getComputedStyle(document.getElementById(id)!.shadowRoot!.querySelector('[part=image]')!).objectFit, id);

test("a square image stays in the banner's frame, shown whole: the card keeps the height reserved for it", async () => {
  const page = await freshPage();
  const card = await render(page, { image: image('square.png', 300, 300) });
  assert.is(card.shape, 'banner');
  assert.is(await fitOf(page), 'scale-down');
  const media = await box(page, 'preview', 'media');
  assert.ok(Math.abs(media.width / media.height - 1.91) < 0.02, 'the frame is 1.91:1');
  await snapshot(page, 'square-in-banner');
});

test("a portrait image is shown whole in the banner's frame; a wide one covers it", async () => {
  const page = await freshPage();
  await render(page, { image: image('portrait.png', 200, 600) }, 'portrait');
  await render(page, { image: image('wide.png', 600, 314) }, 'wide');
  assert.equal([await fitOf(page, 'portrait'), await fitOf(page, 'wide')], ['scale-down', 'cover']);
});

test('a wide image, and summary_large_image with a wide image, get the banner', async () => {
  const page = await freshPage();
  assert.is((await render(page, { image: image('wide.png', 600, 314) }, 'wide')).shape, 'banner');
  const large = await render(page, { image: image('wide.png', null, null), twitter: { 'twitter:card': 'summary_large_image' } }, 'large');
  assert.is(large.shape, 'banner');
  const media = await box(page, 'large', 'media');
  assert.ok(Math.abs(media.width / media.height - 1.91) < 0.02, 'the banner is 1.91:1');
});

test('without a declared size, or with a wrong one, the loaded image decides its fit, and the card does not move', async () => {
  const page = await freshPage();
  await render(page, { image: image('square.png', null, null) }, 'unknown');
  await render(page, { image: image('square.png', 1200, 630) }, 'wrong');
  assert.equal([await fitOf(page, 'unknown'), await fitOf(page, 'wrong')], ['scale-down', 'scale-down']);
  const [unknown, wrong] = [await box(page, 'unknown', 'card'), await box(page, 'wrong', 'card')];
  assert.is(Math.round(unknown.height), Math.round(wrong.height));
});

test('an arrow icon shows that the link opens a new tab; its alt text reads "(opens in a new tab)"', async () => {
  const page = await freshPage();
  await render(page, { image: image('wide.png', 600, 314) });
  const icon = await page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=site]')!, '::after').content);
  assert.is(icon, '"↗" / "(opens in a new tab)"');
  await snapshot(page, 'new-tab-arrow');
});

test('dark mode: the favicon sits on a light rounded tile, so a white one is not a bare white square', async () => {
  const page = await freshPage('dark');
  await render(page, { image: image('wide.png', 600, 314), favicon: { url: `${upstream.origin}/white-icon.png` } });
  await page.waitForFunction(() => (document.getElementById('preview')!.shadowRoot!.querySelector('[part=favicon]') as HTMLImageElement).complete);
  const tile = () =>
    page.evaluate(() => {
      const style = getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=favicon]')!);
      return { background: style.backgroundColor, padding: style.padding, radius: style.borderTopLeftRadius };
    });
  assert.equal(await tile(), { background: 'rgb(255, 255, 255)', padding: '2px', radius: '4px' });
  await snapshot(page, 'favicon-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // On the light card the tile is the light skeleton grey (palette.ts #e8ebef), so a white icon shows there too.
  assert.is((await tile()).background, 'rgb(232, 235, 239)', 'a tinted tile on the light card');
});

test('the error state is one plain link: host and path, underlined, with no site line', async () => {
  const page = await freshPage();
  await mount(page, { 'data-meta': '{', 'data-url': `${upstream.origin}/articles/tide-pools?utm_source=feed` });
  await waitForState(page, 'error');
  const card = await readCard(page);
  assert.is(card.title, `${new URL(upstream.origin).host}/articles/tide-pools`, 'no scheme, no query');
  assert.is(card.href, `${upstream.origin}/articles/tide-pools?utm_source=feed`);
  assert.ok(card.descriptionHidden);
  const look = await page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    const title = getComputedStyle(root.querySelector('[part=title]')!);
    return { underline: title.textDecorationLine, weight: title.fontWeight, site: root.querySelector<HTMLElement>('[part=site]')!.checkVisibility() };
  });
  assert.equal(look, { underline: 'underline', weight: '400', site: false });
  await snapshot(page, 'error-plain-link');
});

test.run();
