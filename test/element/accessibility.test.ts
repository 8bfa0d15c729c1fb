// axe-core (run in Chromium, offline: one script file from node_modules) on a page of cards of
// every kind, in both themes: nothing serious or critical, the experimental
// label-content-name-mismatch rule included (the link's name must contain what it shows). And
// a screen reader hears a long description only as far as the card shows it.
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { accessibleLinks, launchBrowser, mount, openPage, waitForSettled, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let browser: Browser;
let assets: AssetServer;
let upstream: Upstream;
let tab: TestPage;

test.before(async () => {
  [browser, assets, upstream] = await Promise.all([
    launchBrowser(),
    startAssetServer(),
    startUpstream({
      '/photo.png': { type: 'image/png', body: gradientPng(600, 314, [30, 64, 175], [244, 114, 182]) },
      '/icon.png': { type: 'image/png', body: gradientPng(32, 32, [5, 150, 105], [253, 224, 71]) },
    }),
  ]);
  tab = await openPage(browser);
});

test.after(async () => {
  await tab?.close();
  await Promise.all([browser?.close(), assets?.close(), upstream?.close()]);
});

const LONG = 'A field guide to the anemones, sea stars and crabs that live between the tides. '.repeat(8);

/** One card of each kind: attributes beside its data-meta overrides (null: no data-meta). */
const KINDS: [id: string, meta: Partial<DataMeta> | null, attributes?: Record<string, string>][] = [
  ['banner', { site_name: 'Tide Times', author: 'Ann Lee', published_time: '2024-05-01T09:30:00.000Z' }],
  ['long', { description: LONG }],
  ['compact', { site_name: 'Tide Times' }, { 'data-layout': 'compact' }],
  ['no-image', { image: { url: null } }],
  ['video', { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', fetched_url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', image: { url: null } }],
  ['adult', { safety_tags: ['adult', 'suspicious_domain'] }],
  ['rtl', { title: 'برك المد والجزر على الساحل الشمالي', description: 'دليل ميداني إلى شقائق النعمان ونجوم البحر', lang: 'ar' }],
  // Invalid data-meta: the error card, a plain link to data-url.
  ['error', null, { 'data-meta': '{', 'data-url': 'https://unreachable.example/page' }],
];

async function pageOfCards(colorScheme: 'light' | 'dark') {
  await tab.reset(`${assets.baseUrl}/test-page`, colorScheme);
  for (const [id, meta, attributes = {}] of KINDS)
    await mount(tab.page, meta ? { ...attributes, 'data-meta': JSON.stringify(metadataFor(upstream.origin, meta)) } : attributes, id);
  for (const [id] of KINDS) await waitForSettled(tab.page, id);
  await tab.page.addScriptTag({ path: AXE_PATH });
}

for (const scheme of ['light', 'dark'] as const)
  test(`axe-core finds nothing serious on a page of every kind of card (${scheme})`, async () => {
    await pageOfCards(scheme);
    const violations = await tab.page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
        }
      ).axe;
      const { violations } = await axe.run(document, { rules: { 'label-content-name-mismatch': { enabled: true } } });
      return violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
    });
    assert.equal(
      violations.filter((v) => v.impact == 'serious' || v.impact == 'critical'),
      [],
      JSON.stringify(violations),
    );
  });

test('a long description is cut short in the link name as on the card, at a word, with "…"', async () => {
  await pageOfCards('light');
  const links = await accessibleLinks(tab.page);
  const long = links.find((link) => link.name.includes('anemones, sea stars and crabs that live between the tides. A field'))!;
  const shown = await tab.page.evaluate(() => document.getElementById('long')!.shadowRoot!.querySelector('[part=description]')!.textContent);
  assert.ok(shown.length <= 161 && shown.endsWith('…') && LONG.startsWith(`${shown.slice(0, -1)} `), shown);
  assert.is(long.name, `Tide pools of the northern coast ${shown} 127.0.0.1 (opens in a new tab)`);
  assert.is(long.description, '');
});

test.run();
