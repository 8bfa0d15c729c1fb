// Light or dark: data-theme when set, else the color-scheme the page declares, else the OS. The
// page's theme colour is a left-border accent only where it keeps 3:1 against the card.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { DARK, LIGHT } from '../../element/palette.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForSettled, waitForState, type TestPage } from './browser.js';
import { contrastRatio } from './contrast.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';

const ORIGIN = 'http://127.0.0.1:9';
/** Passes 3:1 on the light card only, and on the dark card only. */
const DARK_BLUE = '#0a58ca';
const PALE_YELLOW = '#ffd33d';

let browser: Browser;
let assets: AssetServer;
let tab: TestPage;

const schemePage = (scheme: string) => testPageHtml('/component.js', `<style>:root{color-scheme:${scheme}}</style>`);

test.before(async () => {
  [browser, assets] = await Promise.all([
    launchBrowser(),
    startAssetServer({
      pages: {
        '/light-page': schemePage('light'),
        '/dark-page': schemePage('dark'),
        '/both-page': schemePage('light dark'),
        // No inline style at all on this page: only the element's adopted sheet and its CSSOM writes.
        '/csp-page':
          '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
          `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src *; style-src 'self'">` +
          '<script type="module" src="/component.js"></script></head><body></body></html>',
      },
    }),
  ]);
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close()]);
});

async function freshPage(path: string, os: 'light' | 'dark'): Promise<TestPage['page']> {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}${path}`, os);
  return tab.page;
}

async function render(page: TestPage['page'], attributes: Record<string, string> = {}, overrides: Partial<DataMeta> = {}, id = 'preview') {
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(ORIGIN, overrides)), ...attributes }, id);
  await waitForState(page, 'ready', id);
}

/** "light" or "dark", from the card's computed background. */
const cardScheme = (page: TestPage['page'], id = 'preview') =>
  page
    .evaluate((id) => getComputedStyle(document.getElementById(id)!.shadowRoot!.querySelector('[part=card]')!).backgroundColor, id)
    .then((bg) => {
      if (contrastRatio(bg, LIGHT.bg) === 1) return 'light';
      if (contrastRatio(bg, DARK.bg) === 1) return 'dark';
      return bg;
    });

test('data-theme="dark" makes the card dark on a light OS', async () => {
  const page = await freshPage('/test-page', 'light');
  await render(page, { 'data-theme': 'dark' });
  assert.is(await cardScheme(page), 'dark');
  await snapshot(page, 'theme-forced-dark');
});

test('data-theme="light" makes the card light on a dark OS, even on a page that declares dark', async () => {
  const page = await freshPage('/dark-page', 'dark');
  await render(page, { 'data-theme': 'light' });
  assert.is(await cardScheme(page), 'light');
});

test('data-theme="auto" on a page that declares no color-scheme follows the OS', async () => {
  const page = await freshPage('/test-page', 'dark');
  await render(page, { 'data-theme': 'auto' }, {}, 'auto');
  await render(page, {}, {}, 'unset');
  assert.is(await cardScheme(page, 'auto'), 'dark');
  assert.is(await cardScheme(page, 'unset'), 'dark');
});

test('a page that declares color-scheme: light keeps the card light on a dark OS', async () => {
  const page = await freshPage('/light-page', 'dark');
  await render(page);
  assert.is(await cardScheme(page), 'light');
});

test('a page that declares color-scheme: dark makes the card dark on a light OS', async () => {
  const page = await freshPage('/dark-page', 'light');
  await render(page);
  assert.is(await cardScheme(page), 'dark');
  await snapshot(page, 'theme-page-dark');
});

test('a page that declares color-scheme: light dark lets the OS decide', async () => {
  const page = await freshPage('/both-page', 'dark');
  await render(page);
  assert.is(await cardScheme(page), 'dark');
});

test('changing data-theme recolours the card without rendering it again (no new request)', async () => {
  const page = await freshPage('/test-page', 'light');
  await render(page);
  // Nothing listens on port 9: the image and favicon fail directly and through the proxy; the
  // favicon hides, the image leaves its frame empty.
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector<HTMLElement>('[part=favicon]')!.hidden);
  await page.waitForFunction(() => !document.getElementById('preview')!.shadowRoot!.querySelector('[part=image]')!.hasAttribute('src'));
  const before = [...tab.requested];
  for (const theme of ['dark', 'light', 'dark'] as const) {
    await page.evaluate((theme) => document.getElementById('preview')!.setAttribute('data-theme', theme), theme);
    assert.is(await cardScheme(page), theme);
  }
  await page.evaluate(() => document.getElementById('preview')!.removeAttribute('data-theme'));
  assert.is(await cardScheme(page), 'light', 'back to the OS');
  assert.is((await readCard(page)).imageSrc, null, 'the failed image was not tried again');
  assert.equal(tab.requested, before);
});

test('the theme colour is a left-border accent only where it has 3:1 against the card', async () => {
  const page = await freshPage('/test-page', 'light');
  await render(page, { 'data-theme': 'light' }, { theme_color: DARK_BLUE }, 'blue-light');
  await render(page, { 'data-theme': 'dark' }, { theme_color: DARK_BLUE }, 'blue-dark');
  await render(page, { 'data-theme': 'light' }, { theme_color: PALE_YELLOW }, 'yellow-light');
  await render(page, { 'data-theme': 'dark' }, { theme_color: PALE_YELLOW }, 'yellow-dark');
  const accents = await Promise.all(['blue-light', 'blue-dark', 'yellow-light', 'yellow-dark'].map(async (id) => (await readCard(page, id)).accent));
  assert.equal(accents, ['rgb(10, 88, 202)', null, null, 'rgb(255, 211, 61)']);
  assert.ok(contrastRatio(DARK_BLUE, DARK.bg) < 3 && contrastRatio(PALE_YELLOW, LIGHT.bg) < 3, 'the fixtures straddle 3:1');
  await snapshot(page, 'accent-light', 'blue-light');
  await snapshot(page, 'accent-dark', 'yellow-dark');
});

test('the accent follows a change of the OS theme or of data-theme, without a new render', async () => {
  const page = await freshPage('/test-page', 'light');
  await render(page, {}, { theme_color: DARK_BLUE });
  assert.is((await readCard(page)).accent, 'rgb(10, 88, 202)');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.is(await cardScheme(page), 'dark');
  assert.is((await readCard(page)).accent, null, 'dark blue on the dark card: no accent');
  await page.evaluate(() => document.getElementById('preview')!.setAttribute('data-theme', 'light'));
  assert.is((await readCard(page)).accent, 'rgb(10, 88, 202)');
});

test('under a strict style-src CSP the accent still shows and nothing is blocked', async () => {
  const page = await freshPage('/csp-page', 'light');
  await page.evaluate(() => {
    (window as unknown as { violations: string[] }).violations = [];
    document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { violations: string[] }).violations.push(e.violatedDirective));
  });
  await render(page, {}, { theme_color: DARK_BLUE });
  assert.is((await readCard(page)).accent, 'rgb(10, 88, 202)');
  assert.is(await cardScheme(page), 'light', 'the adopted stylesheet applies');
  const violations = () => page.evaluate(() => (window as unknown as { violations: string[] }).violations);
  assert.equal(await violations(), []);
  // The policy is in force: an inline <style> is refused.
  await page.evaluate(() => document.head.append(Object.assign(document.createElement('style'), { textContent: 'body{color:red}' })));
  await page.waitForFunction(() => (window as unknown as { violations: string[] }).violations.length > 0);
  assert.equal(await violations(), ['style-src-elem']);
});

test('a theme colour that is not an opaque colour gives no accent', async () => {
  const page = await freshPage('/test-page', 'light');
  const values = ['not-a-colour', 'rgba(10, 88, 202, 0.5)', 'transparent', '#ffffff'];
  for (const [i, theme_color] of values.entries()) {
    await mount(page, { 'data-meta': JSON.stringify(metadataFor(ORIGIN, { theme_color })) }, `c${i}`);
    await waitForSettled(page, `c${i}`); // a stricter data-meta check may refuse a non-colour
  }
  for (const i of values.keys()) assert.is((await readCard(page, `c${i}`)).accent, null, values[i]);
});

test.run();
