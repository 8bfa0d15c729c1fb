// How the card is laid out: a wide image's banner, the thumbnail layout of a square, portrait or
// small image (as tall as the banner card), the compact layout's thumbnail that stays square, the new-tab arrow, the favicon's tile in dark mode, and the
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
      '/logo.png': { type: 'image/png', body: gradientPng(64, 64, [5, 150, 105], [253, 224, 71]) },
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

/** How the image sits in its frame: "cover" (cropped) or "scale-down" (whole, never enlarged). */
const fitOf = (page: TestPage['page'], id = 'preview') =>
  page.evaluate((id) => getComputedStyle(document.getElementById(id)!.shadowRoot!.querySelector('[part=image]')!).objectFit, id);

const height = async (page: TestPage['page'], id: string) => Math.round((await box(page, id, 'card')).height);

for (const width of [360, 720])
  test(`at ${width} px a square image takes the thumbnail layout, a square beside the text, and the card is as tall as a banner card`, async () => {
    const page = await freshPage();
    await page.setViewportSize({ width, height: 900 });
    try {
      const square = await render(page, { image: image('square.png', 300, 300) }, 'square');
      const wide = await render(page, { image: image('wide.png', 600, 314) }, 'wide');
      assert.equal([square.shape, wide.shape], ['thumbnail', 'banner']);
      const media = await box(page, 'square', 'media');
      assert.ok(Math.abs(media.width - media.height) < 1 && media.width > 90, `the thumbnail is ${media.width}x${media.height}`);
      const body = await box(page, 'square', 'body');
      assert.ok(body.left >= media.right, 'the text is beside the image');
      // 300 px: shown whole (never enlarged), which fills the smaller square.
      assert.is(await fitOf(page, 'square'), 'scale-down');
      assert.is(await height(page, 'square'), await height(page, 'wide'));
      await snapshot(page, `thumbnail-square-${width}`, 'square');
      await snapshot(page, `banner-wide-${width}`, 'wide');
    } finally {
      await page.setViewportSize({ width: 720, height: 900 });
    }
  });

test('a portrait image takes the thumbnail, cropped to its square; a small logo is shown whole at its own size, never enlarged', async () => {
  const page = await freshPage();
  const portrait = await render(page, { image: image('portrait.png', 200, 600) }, 'portrait');
  const logo = await render(page, { image: image('logo.png', 64, 64) }, 'logo');
  assert.equal([portrait.shape, logo.shape], ['thumbnail', 'thumbnail']);
  assert.equal([await fitOf(page, 'portrait'), await fitOf(page, 'logo')], ['cover', 'scale-down']);
  const media = await box(page, 'logo', 'media');
  assert.ok(media.width > 64, `the thumbnail (${media.width}px) is larger than the logo, which keeps its 64px`);
  await snapshot(page, 'thumbnail-portrait', 'portrait');
  await snapshot(page, 'thumbnail-logo', 'logo');
});

test('a wide image, and summary_large_image with a wide image, get the banner', async () => {
  const page = await freshPage();
  assert.is((await render(page, { image: image('wide.png', 600, 314) }, 'wide')).shape, 'banner');
  const large = await render(page, { image: image('wide.png', null, null), twitter: { 'twitter:card': 'summary_large_image' } }, 'large');
  assert.is(large.shape, 'banner');
  const media = await box(page, 'large', 'media');
  assert.ok(Math.abs(media.width / media.height - 1.91) < 0.02, 'the banner is 1.91:1');
  assert.is(await fitOf(page, 'wide'), 'cover');
});

test('without a declared size, or with a wrong one, the loaded image decides the layout, and the card keeps its height', async () => {
  const page = await freshPage();
  const unknown = await render(page, { image: image('square.png', null, null) }, 'unknown');
  const wrong = await render(page, { image: image('square.png', 1200, 630) }, 'wrong');
  const banner = await render(page, { image: image('wide.png', 600, 314) }, 'banner');
  assert.equal([unknown.shape, wrong.shape, banner.shape], ['thumbnail', 'thumbnail', 'banner']);
  assert.equal([await height(page, 'unknown'), await height(page, 'wrong')], [await height(page, 'banner'), await height(page, 'banner')]);
});

test('in the thumbnail layout the text has the room a banner image would take: a long title keeps three lines and the description more than two', async () => {
  const page = await freshPage();
  const words = 'Anemones, sea stars, crabs and snails live between two worlds';
  const long = { title: `${words}: ${words.toLowerCase()}`, description: `${words}. ${words}. ${words}.` };
  await render(page, { ...long, image: image('square.png', 300, 300) }, 'thumbnail');
  const lines = await page.evaluate(() => {
    const root = document.getElementById('thumbnail')!.shadowRoot!;
    const count = (part: string) => {
      const el = root.querySelector<HTMLElement>(`[part=${part}]`)!;
      return Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight));
    };
    return [count('title'), count('description')];
  });
  assert.ok(lines[0]! >= 2 && lines[1]! > 2, `title ${lines[0]} lines, description ${lines[1]}`);
  await snapshot(page, 'thumbnail-long-text', 'thumbnail');
});

test('--linkpeek-image-height bounds the banner for a chat-like column, and a thumbnail card keeps to the same height', async () => {
  const page = await freshPage();
  await page.addStyleTag({ content: 'linkpeek-preview { --linkpeek-image-height: 9rem }' });
  await render(page, { image: image('wide.png', 600, 314) }, 'wide');
  await render(page, { image: image('square.png', 300, 300) }, 'square');
  const media = await box(page, 'wide', 'media');
  assert.is(Math.round(media.height), 144, 'the banner is 9rem tall, cropped');
  assert.ok(media.width / media.height > 3, `wider than 1.91:1 (${media.width}x${media.height})`);
  assert.is(await height(page, 'square'), await height(page, 'wide'));
  assert.ok((await height(page, 'wide')) < 260, `the card is ${await height(page, 'wide')}px tall`);
  await snapshot(page, 'bounded-banner', 'wide');
  await snapshot(page, 'bounded-thumbnail', 'square');
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
