// Images through /v1/cors-proxy spend the API's budget (docs/SPEC.md "Limits": 20 requests per
// 10 s per client, metadata and proxy together). A proxied image or favicon that is refused (429)
// waits out Retry-After, each at its own moment within a second after it, and is asked again
// rather than hidden for good; a page of 30 cards whose images all need the proxy, read at a
// reading pace under the default limit, ends with every image.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream, type UpstreamRoute } from './upstream-fixture.js';

const CARDS = 30;

let browser: Browser;
let service: Service;
let upstream: Upstream;
let embedder: AssetServer;

test.before(async () => {
  const routes: Record<string, UpstreamRoute> = {
    '/icon.png': { type: 'image/png', body: gradientPng(16, 16, [5, 150, 105], [253, 224, 71]) },
  };
  [browser, service, upstream] = await Promise.all([launchBrowser(), startService(), startUpstream(routes)]);
  for (let i = 0; i < CARDS; i++) {
    // Each card its own image (a shared one would come from the browser's cache), refused to browsers.
    routes[`/photo-${i}.png`] = { type: 'image/png', body: gradientPng(120, 63, [30, 64, 175 - i], [244, 114, 182]), refuseBrowsers: true };
    routes[`/article-${i}`] = {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><title>Article ${i}</title><meta property="og:image" content="${upstream.origin}/photo-${i}.png"><link rel="icon" href="${upstream.origin}/icon.png">`,
    };
  }
  const cards = Array.from({ length: CARDS }, (_, i) => `<linkpeek-preview id="card-${i}" data-url="${upstream.origin}/article-${i}"></linkpeek-preview>`).join(
    '',
  );
  embedder = await startAssetServer({
    pages: { '/feed': testPageHtml(`${service.baseUrl}/component.js`, cards), '/embed': testPageHtml(`${service.baseUrl}/component.js`) },
  });
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), embedder?.close()]);
});

test(`a page of ${CARDS} cards whose images need the proxy, scrolled at a reading pace under the default limit, ends with every image`, async () => {
  const tab = await openPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    const statuses: number[] = [];
    tab.page.on('response', (response) => {
      if (response.url().startsWith(`${service.baseUrl}/v1/`)) statuses.push(response.status());
    });
    const started = Date.now();
    await tab.reset(`${embedder.baseUrl}/feed`);
    // About a card a second: 400 px every second, to the end of the page. A real-time wait on
    // purpose: the pace is measured against the service's real 10 s rate-limit window.
    for (let atEnd = false; !atEnd;) {
      atEnd = await tab.page.evaluate(() => {
        window.scrollBy(0, 400);
        return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
      });
      await tab.page.waitForTimeout(1000);
    }
    for (let i = 0; i < CARDS; i++) {
      await waitForState(tab.page, 'ready', `card-${i}`, 60_000);
      await tab.page.waitForFunction(
        (id) => {
          const img = document.getElementById(id)!.shadowRoot!.querySelector<HTMLImageElement>('[part=image]')!;
          return img.src.startsWith('blob:') && img.complete && img.naturalWidth > 0;
        },
        `card-${i}`,
        { timeout: 60_000 },
      );
    }
    console.log(
      `  ${CARDS} cards with their images in ${((Date.now() - started) / 1000).toFixed(1)} s; ${statuses.filter((s) => s === 429).length} of ${statuses.length} API requests refused`,
    );
    for (let i = 0; i < CARDS; i++) {
      const card = await readCard(tab.page, `card-${i}`);
      assert.is(card.title, `Article ${i}`);
      assert.ok(card.imageLoaded, `card-${i} has its image`);
      assert.is(upstream.hits(`/photo-${i}.png`).browser, 1, 'tried directly once');
    }
    assert.is(statuses.filter((s) => s === 200).length, 2 * CARDS, 'one metadata and one proxy answer per card');
  } finally {
    await tab.close();
  }
});

test('a proxied image and favicon refused with 429 are asked again after Retry-After, each card at its own moment, and shown', async () => {
  const image = gradientPng(120, 63, [124, 58, 237], [252, 211, 77]);
  const arrivals: { url: string; at: number }[] = [];
  const refusedOnce = new Set<string>();
  // An API whose proxy refuses each URL's first request.
  const api = http.createServer((req, res) => {
    arrivals.push({ url: req.url!, at: Date.now() });
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After' };
    if (!refusedOnce.has(req.url!)) {
      refusedOnce.add(req.url!);
      return res.writeHead(429, { ...cors, 'content-type': 'application/json', 'retry-after': '1' }).end('{"code":429,"message":"Too many requests."}');
    }
    res.writeHead(200, { ...cors, 'content-type': 'image/png' }).end(image);
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const tab = await openPage(browser);
  try {
    await tab.reset(`${embedder.baseUrl}/embed`);
    const endpoint = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    // Nothing listens on port 9: every direct load fails at once, and the proxy is asked.
    const ids = [0, 1, 2, 3, 4].map((i) => `c${i}`);
    for (const [i, id] of ids.entries())
      await mount(
        tab.page,
        {
          'data-endpoint': endpoint,
          'data-meta': JSON.stringify(
            metadataFor('http://127.0.0.1:9', { image: { url: `http://127.0.0.1:9/p${i}.png` }, favicon: { url: `http://127.0.0.1:9/i${i}.png` } }),
          ),
        },
        id,
      );
    for (const id of ids) {
      await waitForState(tab.page, 'ready', id);
      // The retries come 1 to 2 s after the refusal (Retry-After plus the gate's jitter); the bound
      // is far above that so a busy machine slows the test down instead of failing it.
      await tab.page.waitForFunction(
        (id) =>
          [...document.getElementById(id)!.shadowRoot!.querySelectorAll('img')].every(
            (img) => img.src.startsWith('blob:') && img.complete && img.naturalWidth > 0,
          ),
        id,
        { timeout: 60_000 },
      );
      const card = await readCard(tab.page, id);
      assert.ok(card.imageLoaded && !card.faviconHidden, id);
    }
    const firstRefusal = arrivals[0]!.at;
    const retries = arrivals.filter((a, i) => arrivals.findIndex((b) => b.url === a.url) !== i);
    assert.is(retries.length, 10, 'each image and favicon asked once more');
    for (const retry of retries) assert.ok(retry.at - firstRefusal >= 950, `asked again after ${retry.at - firstRefusal} ms`);
    const spread = Math.max(...retries.map((r) => r.at)) - Math.min(...retries.map((r) => r.at));
    assert.ok(spread > 50, `the retries are spread over ${spread} ms, not one wave`);
    await snapshot(tab.page, 'proxied-after-429', 'c0');
  } finally {
    await tab.close();
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});

test.run();
