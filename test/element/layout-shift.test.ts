// Cumulative Layout Shift of one card between paragraphs, measured by Chromium's own
// layout-shift entries, with the script arriving 400 ms late and the API answering 600 ms late:
// the page links /linkpeek-preview.css, which reserves the loading card's height before the
// element is defined, and the card keeps that height whatever the answer and its image turn out
// to be. Targets: 0.05 for a banner card and for a square image without a declared size, 0.1 for a
// declared 1200×630 image that fails and for a page the API cannot fetch (the error card). The
// figures are printed for element/README.md.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, openPage, readCard, snapshot, waitForSettled, type TestPage } from './browser.js';
import { gradientPng } from './png.js';
import { startSlowFront, type SlowFront } from './slow-front.js';
import { startUpstream, type Upstream, type UpstreamRoute } from './upstream-fixture.js';

let browser: Browser;
let service: Service;
let upstream: Upstream;
let front: SlowFront;
let embedder: AssetServer;
let tab: TestPage;

const PARAGRAPH =
  '<p>Tide pools form where the sea leaves water behind in hollows of the rock at low tide. ' +
  'Anemones, sea stars, crabs and snails live there between two worlds, and a careful visitor can watch them for hours.</p>';

const article = (origin: string, image: string, size = '') =>
  `<!doctype html><html lang="en"><head><title>Tide pools of the northern coast</title>` +
  `<meta property="og:title" content="Tide pools of the northern coast">` +
  `<meta property="og:description" content="A field guide to the anemones, sea stars and crabs that live between the tides, with maps of the best spots.">` +
  `<meta property="og:image" content="${origin}${image}">${size}<link rel="icon" href="${origin}/icon.png"></head><body></body></html>`;
const DECLARED = '<meta property="og:image:width" content="1200"><meta property="og:image:height" content="630">';

test.before(async () => {
  const routes: Record<string, UpstreamRoute> = {
    '/wide.png': { type: 'image/png', body: gradientPng(1200, 630, [14, 116, 144], [250, 204, 21]), delayMs: 300 },
    '/square.png': { type: 'image/png', body: gradientPng(400, 400, [67, 56, 202], [236, 72, 153]), delayMs: 300 },
    '/icon.png': { type: 'image/png', body: gradientPng(32, 32, [190, 18, 60], [251, 146, 60]) },
  };
  [browser, service, upstream] = await Promise.all([launchBrowser(), startService(), startUpstream(routes)]);
  const origin = upstream.origin;
  const html = (body: string): UpstreamRoute => ({ type: 'text/html; charset=utf-8', body });
  routes['/banner'] = html(article(origin, '/wide.png', DECLARED));
  routes['/square'] = html(article(origin, '/square.png'));
  routes['/broken'] = html(article(origin, '/missing.png', DECLARED));
  routes['/gone'] = { type: 'text/html', body: 'gone', status: 404 };
  front = await startSlowFront(service.baseUrl, (path) => (path.startsWith('/component.js') ? 400 : path.startsWith('/v1/') ? 600 : 0));
  const page = (url: string, layout = 'card') =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CLS</title>` +
    `<link rel="stylesheet" href="${front.origin}/linkpeek-preview.css">` +
    `<style>body{margin:24px auto;max-width:40rem;font:16px/1.5 serif}linkpeek-preview{margin:16px 0}</style>` +
    `<script type="module" src="${front.origin}/component.js"></script></head><body>` +
    `${PARAGRAPH}<linkpeek-preview id="preview" data-url="${url}" data-layout="${layout}"></linkpeek-preview>${PARAGRAPH.repeat(8)}</body></html>`;
  embedder = await startAssetServer({
    pages: {
      '/banner': page(`${origin}/banner`),
      '/square': page(`${origin}/square`),
      '/broken': page(`${origin}/broken`),
      '/gone': page(`${origin}/gone`),
      '/compact': page(`${origin}/square`, 'compact'),
    },
  });
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), front?.close(), embedder?.close()]);
});

/** Loads `path` and returns the page's CLS once the card and its image have settled. */
async function cls(path: string, imageFails = false): Promise<number> {
  if (!tab) {
    tab = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await tab.page.addInitScript(() => {
      const shifts: number[] = [];
      const add = (entries: PerformanceEntryList) => {
        for (const entry of entries as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!entry.hadRecentInput) shifts.push(entry.value);
      };
      const observer = new PerformanceObserver((list) => add(list.getEntries()));
      observer.observe({ type: 'layout-shift', buffered: true });
      // The shifts so far, those still waiting for delivery included.
      (window as unknown as { shifts: () => number[] }).shifts = () => (add(observer.takeRecords()), shifts);
    });
  }
  await tab.reset(`${embedder.baseUrl}${path}`);
  await waitForSettled(tab.page);
  // The image shown, or (failed directly and through the proxy) taken away.
  await tab.page.waitForFunction(
    (imageFails) => {
      const img = document.getElementById('preview')!.shadowRoot!.querySelector('img')!;
      return imageFails ? !img.hasAttribute('src') : img.complete && img.naturalWidth > 0;
    },
    imageFails,
    { timeout: 10_000 },
  );
  // Two frames: the one that lays the image (or its absence) out, and one after it, so its shift
  // is recorded; takeRecords() has it even before the observer's callback runs.
  return tab.page.evaluate(async () => {
    for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
    return (window as unknown as { shifts: () => number[] }).shifts().reduce((sum, value) => sum + value, 0);
  });
}

/** Each card: its page, its target, the state it ends in, and whether it ends without an image. */
const CASES: [path: string, target: number, state: 'ready' | 'error', noImage: boolean][] = [
  ['banner', 0.05, 'ready', false],
  ['square', 0.05, 'ready', false],
  ['broken', 0.1, 'ready', true],
  // A page the API cannot fetch: the error card shrinks to its one line.
  ['gone', 0.1, 'error', true],
];

for (const [path, target, state, noImage] of CASES) {
  test(`CLS of the ${path} card is at most ${target}`, async () => {
    const score = await cls(`/${path}`, noImage);
    console.log(`  CLS ${path}: ${score.toFixed(4)}`);
    assert.ok(score <= target, `CLS ${score}`);
    const card = await readCard(tab.page);
    assert.is(card.state, state);
    if (state === 'ready') assert.is(card.shape, 'banner');
    await snapshot(tab.page, `cls-${path}`);
  });
}

/** The card's height reserved, loading and ready, and the height its badge line adds (when shown). */
async function heightsOf(path: string): Promise<{ reserved: number; loading: number; ready: number; badge: number }> {
  tab ??= await openPage(browser, { viewport: { width: 1280, height: 800 } });
  await tab.reset(`${embedder.baseUrl}${path}`);
  const height = () => tab.page.evaluate(() => document.getElementById('preview')!.getBoundingClientRect().height);
  const reserved = await height();
  await tab.page.waitForFunction(() => customElements.get('linkpeek-preview'));
  const loading = await height();
  await waitForSettled(tab.page);
  // The API tags a bare IP address suspicious_domain: its badge line is the one growth (a safety signal).
  const badge = await tab.page.evaluate(() => {
    const badge = document.getElementById('preview')!.shadowRoot!.querySelector<HTMLElement>('[part=badge]')!;
    return badge.hidden ? 0 : badge.getBoundingClientRect().height + parseFloat(getComputedStyle(badge.parentElement!).rowGap);
  });
  return { reserved, loading, ready: await height(), badge };
}

test("the reserve of /linkpeek-preview.css is the loading card's height, and a banner card ends at it", async () => {
  const { reserved, loading, ready: withBadge, badge } = await heightsOf('/banner');
  const ready = withBadge - badge;
  assert.ok(reserved > 300, `reserved ${reserved}px`);
  assert.ok(Math.abs(loading - reserved) < 1, `loading ${loading}px, reserved ${reserved}px`);
  assert.ok(Math.abs(ready - reserved) < 1, `ready ${ready}px, reserved ${reserved}px`);
});

test('for data-layout="compact" the reserve is the compact card\'s height (its thumbnail\'s, which the text does not pass)', async () => {
  const { reserved, loading, ready } = await heightsOf('/compact');
  assert.ok(reserved > 100 && reserved < 200, `reserved ${reserved}px`);
  assert.ok(Math.abs(loading - reserved) < 1, `loading ${loading}px, reserved ${reserved}px`);
  assert.ok(Math.abs(ready - reserved) < 1, `ready ${ready}px, reserved ${reserved}px`);
});

test.run();
