// The other element tests run in Debian's chromium-headless-shell (browser.ts says why). Here the
// same cards render in Debian's full chromium and in the headless shell, side by side: what they
// show, their state and their boxes are the same, so the shell stands in for the browser.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, waitForState, type CardView, type TestPage } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

let full: Browser;
let shell: Browser;
let assets: AssetServer;
let upstream: Upstream;
const tabs: TestPage[] = [];

test.before(async () => {
  [full, shell, assets, upstream] = await Promise.all([
    launchBrowser('full'),
    launchBrowser('shell'),
    startAssetServer(),
    startUpstream({
      '/photo.png': { type: 'image/png', body: gradientPng(600, 314, [14, 116, 144], [250, 204, 21]) },
      '/icon.png': { type: 'image/png', body: gradientPng(32, 32, [190, 18, 60], [251, 146, 60]) },
    }),
  ]);
});

test.after(async () => {
  await Promise.all(tabs.map((t) => t.close()));
  await Promise.all([full?.close(), shell?.close(), assets?.close(), upstream?.close()]);
});

/** What a card shows and the size of its box, in `browser`, once its images have loaded. */
async function rendered(browser: Browser, meta: string, width: number): Promise<{ card: Omit<CardView, 'html'>; box: { width: number; height: number } }> {
  const tab = await openPage(browser, { viewport: { width, height: 900 } });
  tabs.push(tab);
  await tab.reset(`${assets.baseUrl}/test-page`);
  await mount(tab.page, { 'data-meta': meta });
  await waitForState(tab.page, 'ready');
  await tab.page.waitForFunction(() =>
    [...document.getElementById('preview')!.shadowRoot!.querySelectorAll('img')].every((img) => img.hidden || (img.complete && img.naturalWidth > 0)),
  );
  const { html: _html, ...card } = await readCard(tab.page);
  const box = (await tab.page.locator('#preview').boundingBox())!;
  return { card, box: { width: Math.round(box.width), height: Math.round(box.height) } };
}

for (const width of [360, 1280])
  test(`a card with an image, a site name and a byline renders the same in the full browser as in the headless shell (${width} px)`, async () => {
    const meta = JSON.stringify(
      metadataFor(upstream.origin, { site_name: 'Tide Times', author: 'Ana Ruiz', published_time: '2026-05-04T10:00:00Z', theme_color: '#0e7490' }),
    );
    const [inFull, inShell] = await Promise.all([rendered(full, meta, width), rendered(shell, meta, width)]);
    assert.is(inFull.card.state, 'ready');
    assert.is(inFull.card.title, 'Tide pools of the northern coast');
    assert.ok(inFull.card.imageLoaded);
    assert.equal(inFull.card, inShell.card);
    assert.equal(inFull.box, inShell.box);
  });

test.run();
