// Right-to-left pages and mixed-direction text: logical properties put the compact thumbnail and
// the theme stripe on the starting edge, every text piece takes its own direction (dir=auto), and
// the card carries the page's language.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

let browser: Browser;
let assets: AssetServer;
let upstream: Upstream;
let tab: TestPage;

test.before(async () => {
  [browser, upstream] = await Promise.all([
    launchBrowser(),
    startUpstream({ '/square.png': { type: 'image/png', body: gradientPng(300, 300, [67, 56, 202], [236, 72, 153]) } }),
  ]);
  assets = await startAssetServer({ pages: { '/rtl': testPageHtml().replace('<html lang="en">', '<html lang="ar" dir="rtl">') } });
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close(), upstream?.close()]);
});

async function render(path: string, overrides: Partial<DataMeta>, attributes: Record<string, string> = {}) {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}${path}`);
  await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, overrides)), ...attributes });
  await waitForState(tab.page, 'ready');
  return tab.page;
}

const ARABIC_TITLE = 'برك المد والجزر على الساحل الشمالي';

test('on a right-to-left page the compact thumbnail sits at the right edge with its margin, and the stripe is on the right', async () => {
  const page = await render(
    '/rtl',
    { image: { url: `${upstream.origin}/square.png`, width: 300, height: 300 }, theme_color: '#0a58ca', title: ARABIC_TITLE, lang: 'ar' },
    { 'data-layout': 'compact' },
  );
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('img')!.complete);
  const edges = await page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    const [card, media] = ['card', 'media'].map((p) => root.querySelector(`[part=${p}]`)!.getBoundingClientRect());
    return {
      right: Math.round(card!.right - media!.right),
      left: Math.round(media!.left - card!.left),
      shadow: getComputedStyle(root.querySelector('[part=card]')!).boxShadow,
    };
  });
  assert.is(edges.right, 13, '12px margin and the 1px border at the right');
  assert.ok(edges.left > 300);
  assert.is(edges.shadow, 'rgb(10, 88, 202) -4px 0px 0px 0px inset', 'the stripe on the starting (right) edge');
  assert.is((await readCard(page)).accent, 'rgb(10, 88, 202)');
  await snapshot(page, 'rtl-compact');
});

test('on a left-to-right page the stripe stays on the left', async () => {
  const page = await render('/test-page', { theme_color: '#0a58ca' });
  const shadow = await page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!).boxShadow);
  assert.is(shadow, 'rgb(10, 88, 202) 4px 0px 0px 0px inset');
});

/** The computed direction of each text piece. */
const directions = (page: TestPage['page']) =>
  page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    return Object.fromEntries(['title', 'description', 'host', 'byline'].map((p) => [p, getComputedStyle(root.querySelector(`[part=${p}]`)!).direction]));
  });

test('English text on a right-to-left page runs left to right (its punctuation stays at its end)', async () => {
  const page = await render('/rtl', {
    site_name: 'Tide Times',
    author: 'Ana Ruiz',
    published_time: '2024-05-01T09:30:00.000Z',
    title: 'Tide pools (a guide)!',
  });
  assert.equal(await directions(page), { title: 'ltr', description: 'ltr', host: 'ltr', byline: 'ltr' });
  await snapshot(page, 'rtl-english');
});

test('Arabic text on a left-to-right page runs right to left, aligned to the right', async () => {
  const page = await render('/test-page', {
    title: ARABIC_TITLE,
    description: 'دليل ميداني إلى شقائق النعمان ونجوم البحر',
    site_name: 'أخبار المد',
    lang: 'ar',
  });
  const found = await directions(page);
  assert.equal([found.title, found.description, found.host], ['rtl', 'rtl', 'rtl']);
  const align = await page.evaluate(() => {
    const title = document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!;
    const range = document.createRange();
    range.selectNodeContents(title);
    return Math.round(title.getBoundingClientRect().right - range.getBoundingClientRect().right);
  });
  assert.is(align, 0, 'the title ends at the right edge');
  await snapshot(page, 'ltr-arabic');
});

test('the card carries the page\'s language; without one, lang="" (unknown), not the embedding page\'s', async () => {
  const page = await render('/test-page', { lang: 'fr-CA', title: 'Les cuvettes de marée' });
  const lang = () => page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!.getAttribute('lang'));
  assert.is(await lang(), 'fr-CA');
  await page.evaluate(
    (meta) => document.getElementById('preview')!.setAttribute('data-meta', meta),
    JSON.stringify(metadataFor(upstream.origin, { title: 'Untagged' })),
  );
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!.textContent === 'Untagged');
  assert.is(await lang(), '');
});

test.run();
