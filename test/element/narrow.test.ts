// Narrow columns and large text: at 320 px with a 32 px root font (200% text) the site name and
// the domain both stay on the card, each cut with "…" when it must be, the domain from its start
// so its TLD shows, and the ↗ stays inside. A card whose title is right-to-left aligns every line
// to the right, as one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';

let browser: Browser;
let assets: AssetServer;
let tab: TestPage;

test.before(async () => {
  [browser, assets] = await Promise.all([launchBrowser(), startAssetServer()]);
  tab = await openPage(browser, { viewport: { width: 320, height: 800 } });
});

test.after(async () => {
  await tab?.close();
  await Promise.all([browser?.close(), assets?.close()]);
});

async function card(id: string, overrides: Partial<DataMeta>, attributes: Record<string, string> = {}) {
  await mount(
    tab.page,
    { ...attributes, 'data-meta': JSON.stringify(metadataFor('http://127.0.0.1:9', { image: { url: null }, favicon: { url: null }, ...overrides })) },
    id,
  );
  await waitForState(tab.page, 'ready', id);
}

/** What of the site line shows: the widths of name and domain, whether the domain's last letter and the arrow are inside the card. */
const siteLine = (id: string) =>
  tab.page.evaluate((id) => {
    const root = document.getElementById(id)!.shadowRoot!;
    const box = (part: string) => root.querySelector(`[part=${part}]`)!.getBoundingClientRect();
    const domain = root.querySelector('[part=domain]')!;
    const range = document.createRange();
    const text = domain.firstChild!;
    range.setStart(text, text.textContent!.length - 1);
    range.setEnd(text, text.textContent!.length);
    const last = range.getBoundingClientRect();
    const site = box('site');
    return {
      host: box('host').width,
      domain: box('domain').width,
      lastLetterShown: last.left >= box('domain').left - 0.5 && last.right <= box('domain').right + 0.5,
      // Nothing of the site line (the ↗ last) runs past its end, and that end is inside the card.
      inside: site.right <= box('card').right && root.querySelector('[part=site]')!.scrollWidth <= root.querySelector('[part=site]')!.clientWidth,
    };
  }, id);

for (const [name, layout] of [
  ['card', {}],
  ['compact', { 'data-layout': 'compact' }],
] as const)
  test(`at 320 px and 200% text (${name}) the site name and the domain both show, the domain with its TLD`, async () => {
    await tab.reset(`${assets.baseUrl}/test-page`);
    await tab.page.evaluate(() => (document.documentElement.style.fontSize = '32px'));
    await card('long', { url: 'https://www.an-exceedingly-long-registrable-domain-name.example/', site_name: 'The Northern Coast Tide Pool Society' }, layout);
    await card('youtube', { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', site_name: 'YouTube' }, layout);
    for (const id of ['long', 'youtube']) {
      const line = await siteLine(id);
      assert.ok(line.host > 20, `${id}: the site name shows (${line.host}px)`);
      assert.ok(line.domain > 20, `${id}: the domain shows (${line.domain}px)`);
      assert.ok(line.lastLetterShown, `${id}: the domain's last letter shows`);
      assert.ok(line.inside, `${id}: the site line ends inside the card`);
    }
    await snapshot(tab.page, `narrow-200-${name}`, 'long');
    await snapshot(tab.page, `narrow-200-${name}-youtube`, 'youtube');
  });

test('a right-to-left title aligns every line of the card to the right, on a left-to-right page', async () => {
  await tab.reset(`${assets.baseUrl}/test-page`);
  await card('rtl', { title: 'برك المد والجزر', description: 'دليل ميداني', site_name: 'Tide Times', author: 'Ann Lee', lang: 'ar' });
  const rights = await tab.page.evaluate(() => {
    const root = document.getElementById('rtl')!.shadowRoot!;
    const end = (el: Element) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return Math.round(range.getBoundingClientRect().right);
    };
    // The lines shown (fitText may have dropped the description), and the arrow that ends the site line.
    const shown = ['title', 'description', 'byline', 'host']
      .map((part) => root.querySelector<HTMLElement>(`[part=${part}]`)!)
      .filter((el) => el.checkVisibility());
    return shown.map(end);
  });
  assert.ok(Math.max(...rights) - Math.min(...rights) <= 2, `right edges ${rights.join(', ')}`);
  await snapshot(tab.page, 'rtl-title-aligned', 'rtl');
});

test.run();
