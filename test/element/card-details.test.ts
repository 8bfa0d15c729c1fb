// The fields beyond SPEC.md on the card: site name beside the favicon, "author · date" on a line
// of its own (the date in the viewer's locale), the page's language on its own text, and a play
// badge for a video. Each may be absent.
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
const tabs: TestPage[] = [];

test.before(async () => {
  [browser, assets, upstream] = await Promise.all([
    launchBrowser(),
    startAssetServer(),
    startUpstream({
      '/photo.png': { type: 'image/png', body: gradientPng(600, 314, [14, 116, 144], [250, 204, 21]) },
      '/icon.png': { type: 'image/png', body: gradientPng(32, 32, [190, 18, 60], [251, 146, 60]) },
    }),
  ]);
});

test.after(async () => {
  // The pages' contexts first: closing the browser at the same time races them ("context has been closed").
  await Promise.all(tabs.map((t) => t.close()));
  await Promise.all([browser?.close(), assets?.close(), upstream?.close()]);
});

/** A test page in a browser set to `locale` and `timezoneId`. */
async function pageIn(locale = 'en-US', timezoneId = 'UTC'): Promise<TestPage['page']> {
  const tab = await openPage(browser, { locale, timezoneId });
  tabs.push(tab);
  await tab.reset(`${assets.baseUrl}/test-page`);
  return tab.page;
}

async function render(page: TestPage['page'], overrides: Partial<DataMeta>, id = 'preview') {
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, overrides)) }, id);
  await waitForState(page, 'ready', id);
  return readCard(page, id);
}

const YOUTUBE_LIKE = {
  type: 'video' as const,
  provider_name: 'VideoSite',
  provider_url: 'https://video.example/',
  title: 'Tide pools at dawn',
  author_name: 'Ana Ruiz',
  author_url: 'https://video.example/ana',
  thumbnail_url: null,
  thumbnail_width: null,
  thumbnail_height: null,
  width: 640,
  height: 360,
  html: '<iframe src="https://video.example/embed/1"></iframe>',
};

test('the site name shows beside the favicon; without one, the host name', async () => {
  const page = await pageIn();
  const named = await render(page, { site_name: 'Tide Times' }, 'named');
  const unnamed = await render(page, { site_name: null }, 'unnamed');
  assert.is(named.host, 'Tide Times');
  assert.is(unnamed.host, '127.0.0.1');
  const beside = await page.evaluate(() => {
    const root = document.getElementById('named')!.shadowRoot!;
    const [icon, name] = ['favicon', 'host'].map((p) => root.querySelector(`[part=${p}]`)!.getBoundingClientRect());
    return Math.abs(icon!.top + icon!.height / 2 - (name!.top + name!.height / 2)) < 2 && icon!.right < name!.left;
  });
  assert.ok(beside, 'one line: favicon, then the name');
  await page.waitForFunction(() => document.getElementById('named')!.shadowRoot!.querySelector('img')!.complete);
  await snapshot(page, 'site-name', 'named');
});

test("author and date show on a second line, the date in the viewer's locale", async () => {
  const meta = { site_name: 'Tide Times', author: 'Ana Ruiz', published_time: '2024-05-01T09:30:00.000Z' };
  const english = await pageIn('en-US');
  const german = await pageIn('de-DE');
  assert.is((await render(english, meta)).byline, 'Ana Ruiz · May 1, 2024');
  assert.is((await render(german, meta)).byline, 'Ana Ruiz · 01.05.2024');
  const below = await english.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    const [site, byline] = ['site', 'byline'].map((p) => root.querySelector(`[part=${p}]`)!.getBoundingClientRect());
    return byline!.top >= site!.bottom;
  });
  assert.ok(below, 'the byline is under the site line');
  await english.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('img')!.complete);
  await snapshot(english, 'byline');
});

test('author alone, or date alone, shows without a separator; neither hides the line', async () => {
  const page = await pageIn();
  const author = await render(page, { author: 'Ana Ruiz' }, 'author');
  const date = await render(page, { published_time: '2023-12-24T18:00:00.000Z' }, 'date');
  const neither = await render(page, {}, 'neither');
  assert.is(author.byline, 'Ana Ruiz');
  assert.is(date.byline, 'Dec 24, 2023');
  assert.is(neither.byline, '');
  assert.ok(neither.bylineHidden);
  assert.not.ok(author.bylineHidden);
});

test("a date given without a time stays on its day in every time zone; an instant shows the viewer's day", async () => {
  const page = await pageIn('en-US', 'America/Los_Angeles');
  const dateOnly = await render(page, { published_time: '2024-05-01T00:00:00.000Z' }, 'day');
  const instant = await render(page, { published_time: '2024-05-01T03:00:00.000Z' }, 'instant');
  assert.is(dateOnly.byline, 'May 1, 2024');
  assert.is(instant.byline, 'Apr 30, 2024', '03:00 UTC is the evening before in Los Angeles');
});

test("lang marks the card with the page's language (the byline's date with the viewer's); without it, lang=\"\" (unknown), not the embedding page's", async () => {
  const page = await pageIn();
  await render(page, { lang: 'fr-CA', title: 'Les cuvettes de marée' });
  const langs = () =>
    page.evaluate(() => {
      const root = document.getElementById('preview')!.shadowRoot!;
      return ['title', 'description', 'byline'].map((p) => root.querySelector(`[part=${p}]`)!.closest('[lang]')?.getAttribute('lang') ?? null);
    });
  assert.equal(await langs(), ['fr-CA', 'fr-CA', 'en-US'], "the date is in the viewer's locale");
  await page.evaluate(
    (meta) => document.getElementById('preview')!.setAttribute('data-meta', meta),
    JSON.stringify(metadataFor(upstream.origin, { title: 'Untagged' })),
  );
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!.textContent === 'Untagged');
  assert.equal(await langs(), ['', '', 'en-US'], 'lang="": not the embedding page\'s language either');
});

test('a data-meta without the fields beyond SPEC.md renders as before', async () => {
  const page = await pageIn();
  const meta: Record<string, unknown> = metadataFor(upstream.origin);
  for (const key of ['site_name', 'lang', 'author', 'published_time', 'theme_color', 'embed']) delete meta[key];
  await mount(page, { 'data-meta': JSON.stringify(meta) });
  await waitForState(page, 'ready');
  const card = await readCard(page);
  assert.is(card.title, 'Tide pools of the northern coast');
  assert.is(card.host, '127.0.0.1');
  assert.ok(card.bylineHidden);
  assert.is(card.accent, null);
  assert.is(card.shape, 'banner');
});

test('a video embed puts a play badge on the image; other embeds do not', async () => {
  const page = await pageIn();
  await render(page, { embed: YOUTUBE_LIKE }, 'video');
  await render(page, { embed: { ...YOUTUBE_LIKE, type: 'rich' } }, 'rich');
  const badge = (id: string) =>
    page.evaluate((id) => {
      const play = document.getElementById(id)!.shadowRoot!.querySelector('[part=play]')!;
      const mark = getComputedStyle(play);
      return mark.display === 'none' ? null : { width: mark.width, height: mark.height };
    }, id);
  assert.ok(await badge('video'), 'a play mark is drawn');
  assert.is(await badge('rich'), null);
  await page.waitForFunction(() => document.getElementById('video')!.shadowRoot!.querySelector('img')!.complete);
  await snapshot(page, 'video-badge', 'video');
});

test.run();
