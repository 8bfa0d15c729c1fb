// Many cards on one page against the running service and its real rate limiter (docs/SPEC.md
// "Limits": 20 requests per window per client, then a block as long as the window, with
// Retry-After; the window is 5 s here, not 10, since the first test waits for it): a card asks
// the API only when it nears the viewport; once the budget the API reports is spent, the others
// wait in their loading state for it to grow again instead of being refused; a refused card waits
// out Retry-After, then asks again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { until } from '../helpers/until.js';
import { launchBrowser, openPage, readCard, waitForState, type TestPage } from './browser.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream, type UpstreamRoute } from './upstream-fixture.js';

const CARDS = 25;

let browser: Browser;
let service: Service;
let upstream: Upstream;
let embedder: AssetServer;

const articleHtml = (origin: string, title: string) =>
  `<!doctype html><html><head><title>${title}</title>` +
  `<meta property="og:image" content="${origin}/photo.png"><link rel="icon" href="${origin}/icon.png"></head><body></body></html>`;

/** A page of `data-url` cards, present before the module defines the element, like a real page. */
const cardsHtml = (urls: string[], between = '') =>
  urls.map((url, i) => `<linkpeek-preview id="card-${i}" data-layout="compact" data-url="${url}"></linkpeek-preview>${between}`).join('');

/** Records every load/error event a card fires (they do not bubble: a capturing listener sees them). */
const RECORD_SETTLES = `<script>window.settles = [];
for (const type of ['load', 'error']) document.addEventListener(type, (event) => {
  if (event.target.localName === 'linkpeek-preview') settles.push(event.target.id + ' ' + type);
}, true);</script>`;

test.before(async () => {
  // Images load directly from the upstream, so the cards spend the API budget on metadata only.
  const routes: Record<string, UpstreamRoute> = {
    '/photo.png': { type: 'image/png', body: gradientPng(120, 63, [30, 64, 175], [244, 114, 182]) },
    '/icon.png': { type: 'image/png', body: gradientPng(16, 16, [5, 150, 105], [253, 224, 71]) },
  };
  [browser, service, upstream] = await Promise.all([launchBrowser(), startService({ RATE_LIMIT_WINDOW_MS: '5000' }), startUpstream(routes)]);
  const urls = Array.from({ length: CARDS }, (_, i) => `${upstream.origin}/article-${i}`);
  urls.forEach((url, i) => (routes[`/article-${i}`] = { type: 'text/html; charset=utf-8', body: articleHtml(upstream.origin, `Article ${i}`) }));
  const component = `${service.baseUrl}/component.js`;
  embedder = await startAssetServer({
    pages: {
      // Five columns: every card is in view at once.
      '/grid': testPageHtml(component, `${RECORD_SETTLES}<style>body{display:grid;grid-template-columns:repeat(5,1fr);gap:8px}</style>${cardsHtml(urls)}`),
      // One card in view, one far below the fold.
      '/long': testPageHtml(
        component,
        cardsHtml([`${upstream.origin}/article-0?long`, `${upstream.origin}/article-1?long`], '<div style="height:3000px"></div>'),
      ),
      // A 300 px scrolling pane in view: a card at its top, one 50 px below its visible part, one far below.
      '/pane': testPageHtml(
        component,
        `<div id="pane" style="height:300px;overflow:auto">` +
          `<div style="height:350px">${cardsHtml([`${upstream.origin}/article-2?pane`])}</div>` +
          `<div style="height:2000px">${cardsHtml([`${upstream.origin}/article-3?pane`]).replace('card-0', 'card-1')}</div>` +
          `${cardsHtml([`${upstream.origin}/article-4?pane`]).replace('card-0', 'card-2')}</div>`,
      ),
    },
  });
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), embedder?.close()]);
});

const apiUrl = (page: string) => `${service.baseUrl}/v1/metadata?url=${encodeURIComponent(page)}`;

test('a page of 25 cards all in view ends with 25 cards under the real rate limit: the last 5 wait for the budget while loading, none refused', async () => {
  const tab: TestPage = await openPage(browser, { viewport: { width: 1600, height: 900 } });
  try {
    const statuses: number[] = [];
    tab.page.on('response', (response) => {
      if (response.url().startsWith(`${service.baseUrl}/v1/metadata`)) statuses.push(response.status());
    });
    await tab.reset(`${embedder.baseUrl}/grid`);
    // The first answers say what is left: 20 cards settle first, the other 5 wait (loading) for the window to move.
    await tab.page.waitForFunction(() => (window as unknown as { settles: string[] }).settles.length === 20, null, { timeout: 20_000 });
    await tab.page.waitForFunction((n) => document.querySelectorAll('linkpeek-preview:state(loading)').length === n, CARDS - 20);
    for (let i = 0; i < CARDS; i++) await waitForState(tab.page, 'ready', `card-${i}`, 40_000);
    for (let i = 0; i < CARDS; i++) assert.is((await readCard(tab.page, `card-${i}`)).title, `Article ${i}`);
    const settles = await tab.page.evaluate(() => (window as unknown as { settles: string[] }).settles);
    assert.equal(settles.sort(), Array.from({ length: CARDS }, (_, i) => `card-${i} load`).sort(), 'one load per card, no error on the way');
    // Never past the limit: no block, and one answer per card.
    assert.equal(statuses, Array<number>(CARDS).fill(200));
  } finally {
    await tab.close();
  }
});

test('an off-screen card makes no request until it is scrolled near the viewport', async () => {
  const tab = await openPage(browser);
  try {
    const [near, far] = [`${upstream.origin}/article-0?long`, `${upstream.origin}/article-1?long`];
    await tab.reset(`${embedder.baseUrl}/long`);
    // One observer reports both cards at once: by the time the first has asked, the second was seen off-screen.
    await waitForState(tab.page, 'ready', 'card-0');
    assert.is((await readCard(tab.page, 'card-1')).state, 'loading');
    assert.equal(
      tab.requested.filter((url) => url.includes('/v1/metadata')),
      [apiUrl(near)],
    );
    // Scrolled to 100 px above the card: still out of sight, but near enough to ask.
    const asked = tab.page.waitForRequest(apiUrl(far));
    await tab.page.evaluate(() => {
      const card = document.getElementById('card-1')!;
      window.scrollBy(0, card.getBoundingClientRect().top - window.innerHeight - 100);
    });
    await asked;
    assert.ok(
      await tab.page.evaluate(() => document.getElementById('card-1')!.getBoundingClientRect().top > window.innerHeight),
      'the card is still below the fold',
    );
    await waitForState(tab.page, 'ready', 'card-1');
    assert.is((await readCard(tab.page, 'card-1')).title, 'Article 1');
  } finally {
    await tab.close();
  }
});

test("in a scrolling pane a card starts when it nears the pane's visible part, not only once it is scrolled into sight", async () => {
  const tab = await openPage(browser);
  try {
    const [top, below, far] = [2, 3, 4].map((i) => `${upstream.origin}/article-${i}?pane`);
    const askedBelow = tab.page.waitForRequest(apiUrl(below!));
    await tab.reset(`${embedder.baseUrl}/pane`);
    await askedBelow;
    await waitForState(tab.page, 'ready', 'card-1');
    assert.ok(
      await tab.page.evaluate(
        () => document.getElementById('card-1')!.getBoundingClientRect().top > document.getElementById('pane')!.getBoundingClientRect().bottom,
      ),
      "the card is below the pane's visible part",
    );
    assert.equal(tab.requested.filter((url) => url.includes('/v1/metadata')).sort(), [apiUrl(top!), apiUrl(below!)].sort());
    // Scrolled inside the pane to 100 px above the far card: still hidden, near enough to ask.
    const askedFar = tab.page.waitForRequest(apiUrl(far!));
    await tab.page.evaluate(() => {
      const pane = document.getElementById('pane')!;
      pane.scrollBy(0, document.getElementById('card-2')!.getBoundingClientRect().top - pane.getBoundingClientRect().bottom - 100);
    });
    await askedFar;
    await waitForState(tab.page, 'ready', 'card-2');
    assert.is((await readCard(tab.page, 'card-2')).title, 'Article 4');
  } finally {
    await tab.close();
  }
});

/**
 * An API that answers every request 429 with the Retry-After `retryAfter()` gives (CORS included,
 * as the service answers a blocked client), and a tab whose card-0 asks it for `pageUrl` until
 * `settled` resolves. Returns when each request arrived.
 */
async function againstRefusingApi(
  retryAfter: () => string,
  pageUrl: string,
  settled: (tab: TestPage, arrivals: number[]) => Promise<void>,
  { pageClock = false } = {},
): Promise<number[]> {
  const arrivals: number[] = [];
  const refusing = http.createServer((_req, res) => {
    arrivals.push(Date.now());
    res
      .writeHead(429, {
        'content-type': 'application/json',
        'retry-after': retryAfter(),
        'access-control-allow-origin': '*',
        'access-control-expose-headers': 'Retry-After',
      })
      .end('{"code":429,"message":"Too many requests."}');
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  const tab = await openPage(browser);
  try {
    await tab.reset(`${embedder.baseUrl}/long`);
    const endpoint = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    if (pageClock) await tab.page.clock.install();
    await tab.page.evaluate(
      ([endpoint, url]) => {
        const card = document.getElementById('card-0')!;
        card.dataset.endpoint = endpoint;
        card.dataset.url = url;
      },
      [endpoint, pageUrl] as const,
    );
    await settled(tab, arrivals);
    return arrivals;
  } finally {
    await tab.close();
    refusing.closeAllConnections();
    await new Promise<void>((resolve) => refusing.close(() => resolve()));
  }
}

test('an API that keeps refusing ends in the error state after 4 retries', async () => {
  const arrivals = await againstRefusingApi(
    () => '1',
    'http://127.0.0.1:9/refused',
    async (tab, arrivals) => {
      // Each retry waits Retry-After (1 s), on the page's clock: moved on
      // 2 s once each request has been refused rather than waited out.
      for (let n = 1; n <= 4; n++) {
        await until(() => arrivals.length >= n, `request ${n} to arrive`);
        await tab.page.clock.runFor(2_000);
      }
      await waitForState(tab.page, 'error', 'card-0', 15_000);
      assert.is((await readCard(tab.page, 'card-0')).href, 'http://127.0.0.1:9/refused');
    },
    { pageClock: true },
  );
  assert.is(arrivals.length, 5, 'the first request and 4 retries');
});

test('a Retry-After given as an HTTP-date is waited out until that date, not read as 1 s', async () => {
  // A proxy in front of the API may send the date form (RFC 9110 10.2.3): 3 s ahead, whole seconds.
  const threeSecondsOn = () => new Date((Math.floor(Date.now() / 1000) + 3) * 1000).toUTCString();
  const arrivals = await againstRefusingApi(threeSecondsOn, 'http://127.0.0.1:9/dated', async (_tab, arrivals) => {
    await until(() => arrivals.length >= 2, 'the card to ask again').catch(() => {}); // asserted below
  });
  assert.ok(arrivals.length >= 2, 'the card asked again');
  // The date is 2 to 3 s after the first request (it is rounded down to a whole second).
  assert.ok(arrivals[1]! - arrivals[0]! >= 1900, `asked again after ${arrivals[1]! - arrivals[0]!} ms`);
});

test.run();
