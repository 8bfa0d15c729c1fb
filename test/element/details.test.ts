// Details seen in Chromium: the auto theme follows a run-time color-scheme change, "Preview
// unavailable" is no link and has no arrow, a javascript:/data: data-meta url warns and gives the
// error card, a later module script hears a data-meta card's load, the byline keeps to one line
// and does not repeat the site, sizes follow the reader's font size, the play badge is announced,
// the adult blur lifts on a click, and a bad data-endpoint warns once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, ConsoleMessage } from 'playwright-core';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { accessibleLinks, launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';

const ORIGIN = 'http://127.0.0.1:9';
const meta = (overrides: Partial<DataMeta> = {}) => JSON.stringify(metadataFor(ORIGIN, { image: { url: null }, favicon: { url: null }, ...overrides }));

let browser: Browser;
let assets: AssetServer;
let tab: TestPage;
const messages: string[] = [];

test.before(async () => {
  [browser] = await Promise.all([launchBrowser()]);
  assets = await startAssetServer({
    pages: {
      // A data-meta card in the markup, and a module script after component.js that listens for its load.
      '/later-listener': testPageHtml(
        '/component.js',
        `<linkpeek-preview id="preview" data-meta='${meta().replace(/'/g, '&#39;')}'></linkpeek-preview>` +
          `<script type="module">window.heard = []; document.getElementById('preview').addEventListener('load', () => heard.push('load'));</script>`,
      ),
    },
  });
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close()]);
});

async function freshPage(path = '/test-page'): Promise<TestPage['page']> {
  if (!tab) {
    tab = await openPage(browser);
    tab.page.on('console', (message: ConsoleMessage) => messages.push(`${message.type()}: ${message.text()}`));
  }
  await tab.reset(`${assets.baseUrl}${path}`);
  messages.length = 0;
  return tab.page;
}

const cardBackground = (page: TestPage['page']) =>
  page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!).backgroundColor);

test('auto theme follows a page whose color-scheme changes at run time', async () => {
  const page = await freshPage();
  await page.emulateMedia({ colorScheme: 'light' });
  await mount(page, { 'data-meta': meta() });
  await waitForState(page, 'ready');
  assert.is(await cardBackground(page), 'rgb(255, 255, 255)');
  await page.evaluate(() => (document.documentElement.style.colorScheme = 'dark'));
  await page.waitForFunction(
    () => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!).backgroundColor === 'rgb(22, 27, 34)',
  );
  // Back to no declaration on a dark OS: the card follows the OS again.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.evaluate(() => (document.documentElement.style.colorScheme = 'light'));
  await page.waitForFunction(
    () => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!).backgroundColor === 'rgb(255, 255, 255)',
  );
  await page.evaluate(() => (document.documentElement.style.colorScheme = ''));
  await page.waitForFunction(
    () => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!).backgroundColor === 'rgb(22, 27, 34)',
  );
});

test('"Preview unavailable" without a URL is not a link and shows no arrow; with a URL the arrow shows', async () => {
  const page = await freshPage();
  await mount(page, { 'data-meta': '{' }, 'none');
  await mount(page, { 'data-meta': '{', 'data-url': `${ORIGIN}/gone` }, 'linked');
  await waitForState(page, 'error', 'none');
  await waitForState(page, 'error', 'linked');
  const arrow = (id: string) =>
    page.evaluate((id) => getComputedStyle(document.getElementById(id)!.shadowRoot!.querySelector('[part=title]')!, '::after').content, id);
  assert.equal([(await readCard(page, 'none')).href, await arrow('none')], [null, 'none']);
  assert.is(await arrow('linked'), '" ↗" / "(opens in a new tab)"');
  assert.equal((await accessibleLinks(page)).length, 1, 'only the card with a URL is a link');
  await snapshot(page, 'preview-unavailable', 'none');
});

test('a data-meta whose url is javascript: or data: logs a warning and gives the error card', async () => {
  const page = await freshPage();
  await mount(page, { 'data-meta': meta({ url: 'javascript:alert(1)' }) }, 'js');
  await mount(page, { 'data-meta': meta({ url: 'data:text/html,<b>hi</b>' }) }, 'data');
  await waitForState(page, 'error', 'js');
  await waitForState(page, 'error', 'data');
  assert.equal(messages, ['warning: linkpeek-preview: data-meta.url is not an http(s) URL', 'warning: linkpeek-preview: data-meta.url is not an http(s) URL']);
  assert.is((await readCard(page, 'js')).title, 'Preview unavailable');
});

test('the load event of a data-meta card is heard by a listener that a later module script adds', async () => {
  const page = await freshPage('/later-listener');
  await waitForState(page, 'ready');
  await page.waitForFunction(() => (window as unknown as { heard?: string[] }).heard?.length === 1);
  assert.equal(await page.evaluate(() => (window as unknown as { heard: string[] }).heard), ['load']);
});

test('the byline keeps to one line, and an author who is the site name is not repeated', async () => {
  const page = await freshPage();
  const long = 'Ana Ruiz, Bernard Okafor, Chen Wei, Dagny Lindqvist, Emeka Obi, Farida Haddad and the whole tide-pool survey team';
  await mount(page, { 'data-meta': meta({ author: long, published_time: '2024-05-01T09:30:00.000Z' }) }, 'long');
  await mount(page, { 'data-meta': meta({ author: 'Tide Times', site_name: 'Tide Times', published_time: '2024-05-01T09:30:00.000Z' }) }, 'same');
  await waitForState(page, 'ready', 'long');
  await waitForState(page, 'ready', 'same');
  const lines = await page.evaluate(() => {
    const byline = document.getElementById('long')!.shadowRoot!.querySelector<HTMLElement>('[part=byline]')!;
    return Math.round(byline.getBoundingClientRect().height / parseFloat(getComputedStyle(byline).lineHeight));
  });
  assert.is(lines, 1);
  assert.is((await readCard(page, 'same')).byline, 'May 1, 2024');
  await snapshot(page, 'byline-one-line', 'long');
});

test("sizes follow the reader's font size (rem): at 20px the text and the favicon grow by 25%", async () => {
  const page = await freshPage();
  const sizes = () =>
    page.evaluate(() => {
      const root = document.getElementById('preview')!.shadowRoot!;
      const px = (part: string, property: 'fontSize' | 'width') => parseFloat(getComputedStyle(root.querySelector(`[part=${part}]`)!)[property]);
      return [px('description', 'fontSize'), px('title', 'fontSize'), px('favicon', 'width')];
    });
  await mount(page, { 'data-meta': meta() });
  await waitForState(page, 'ready');
  const base = await sizes();
  assert.equal(base.map(Math.round), [14, 15, 16]);
  await page.evaluate(() => (document.documentElement.style.fontSize = '20px'));
  assert.equal(
    await sizes(),
    base.map((size) => size * 1.25),
  );
});

test('the play badge is announced: "Video" is part of the link\'s name', async () => {
  const page = await freshPage();
  const embed = {
    type: 'video' as const,
    provider_name: null,
    provider_url: null,
    title: null,
    author_name: null,
    author_url: null,
    thumbnail_url: null,
    thumbnail_width: null,
    thumbnail_height: null,
    width: null,
    height: null,
    html: null,
  };
  // An image, so the badge shows: a card without one has no badge to announce.
  await mount(page, { 'data-meta': meta({ embed, title: 'Low tide, time-lapse', description: null, image: { url: `${assets.baseUrl}/favicon.ico` } }) });
  await waitForState(page, 'ready');
  assert.is((await accessibleLinks(page))[0]!.name, 'Video Low tide, time-lapse 127.0.0.1 (opens in a new tab)');
});

test('a click on a blurred adult image reveals it and does not follow the link', async () => {
  const page = await freshPage();
  await mount(page, { 'data-meta': meta({ safety_tags: ['adult'], image: { url: `${ORIGIN}/p.png` } }) });
  await waitForState(page, 'ready');
  assert.ok((await readCard(page)).mediaBlurred);
  const pages = page.context().pages().length;
  await page.locator('#preview').locator('[part=media]').click();
  assert.not.ok((await readCard(page)).mediaBlurred);
  assert.is(page.context().pages().length, pages, 'no new tab opened');
});

test('an invalid data-endpoint warns once, however many cards carry it', async () => {
  const page = await freshPage();
  for (const id of ['a', 'b', 'c']) await mount(page, { 'data-endpoint': 'ftp://api.example/', 'data-url': `${ORIGIN}/page` }, id);
  for (const id of ['a', 'b', 'c']) await waitForState(page, 'error', id);
  assert.equal(messages, ['warning: linkpeek-preview: data-endpoint is not an http(s) URL']);
});

test('a white favicon stays visible: it sits on a tinted tile in the light theme, a white one in the dark', async () => {
  const tiles: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    const page = await freshPage();
    await page.emulateMedia({ colorScheme: scheme });
    await mount(page, { 'data-meta': meta({ favicon: { url: `${assets.baseUrl}/favicon.ico` } }) });
    await waitForState(page, 'ready');
    tiles.push(await page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=favicon]')!).backgroundColor));
  }
  // palette.ts: the light skeleton #e8ebef, and white.
  assert.equal(tiles, ['rgb(232, 235, 239)', 'rgb(255, 255, 255)']);
});

test.run();
