// Images through /v1/cors-proxy spend the API's budget (docs/SPEC.md "Limits": 20 requests per
// 10 s per client, metadata and proxy together). The page's gate spends only what the API says is
// left, lets waiting requests through in reading order, and a request refused anyway (429) waits
// out Retry-After and is asked again rather than hidden for good: a page of 30 cards whose images
// need the proxy, read at a card a second, ends with every image within 30 s. A favicon that fails
// directly hides rather than take a request from an image.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream, type UpstreamRoute } from './upstream-fixture.js';

const CARDS = 30;
/**
 * Every image within 30 s of the page's start, read at a card a second (400 px a second at 1280 px),
 * against the spec's own 10 s window: the whole-second X-RateLimit-Reset and Retry-After do not
 * scale down with a shorter window, so a faster run of this test would not be the same test.
 */
const TARGET_MS = 30_000;
const STEP_MS = 1000;

let browser: Browser;
let service: Service;
let upstream: Upstream;
let embedder: AssetServer;

test.before(async () => {
  const routes: Record<string, UpstreamRoute> = {
    '/icon.png': { type: 'image/png', body: gradientPng(16, 16, [5, 150, 105], [253, 224, 71]), refuseBrowsers: true },
  };
  [browser, service, upstream] = await Promise.all([launchBrowser(), startService(), startUpstream(routes)]);
  for (let i = 0; i < CARDS; i++) {
    // Each card its own image (a shared one would come from the browser's cache), refused to browsers.
    const photo: UpstreamRoute = { type: 'image/png', body: gradientPng(120, 63, [30, 64, 175 - i], [244, 114, 182]), refuseBrowsers: true };
    routes[`/photo-${i}.png`] = photo;
    // The same bytes for the reading-order test's cards, under names of their own.
    routes[`/order-${i < 6 ? i : 'first'}.png`] = photo;
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
  feed = readFeed();
  feed.catch(() => {}); // awaited, and its failure reported, by the last test
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), embedder?.close()]);
});

/**
 * Reads the feed as a reader would, in a tab of its own (the file's other tests run meanwhile,
 * each against a service of its own): what the API answered when, and each card as it ended.
 */
async function readFeed() {
  const tab = await openPage(browser, { viewport: { width: 1280, height: 800 } });
  try {
    const answers: { status: number; image: number; article: number; at: number; remaining?: string }[] = [];
    let started = Date.now();
    tab.page.on('response', (response) => {
      const url = decodeURIComponent(response.url());
      if (url.startsWith(`${service.baseUrl}/v1/`))
        answers.push({
          status: response.status(),
          image: Number(/photo-(\d+)/.exec(url)?.[1] ?? NaN),
          article: Number(/article-(\d+)/.exec(url)?.[1] ?? NaN),
          at: Date.now() - started,
          remaining: response.headers()['x-ratelimit-remaining'],
        });
    });
    await tab.page.goto('about:blank');
    started = Date.now();
    await tab.page.goto(`${embedder.baseUrl}/feed`);
    // About a card a second: 400 px a step, to the end of the page. A real-time wait on purpose:
    // the pace is measured against the service's real rate-limit window.
    let steps = 0;
    for (let atEnd = false; !atEnd; steps++) {
      atEnd = await tab.page.evaluate(() => {
        window.scrollBy(0, 400);
        return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
      });
      await tab.page.waitForTimeout(STEP_MS);
    }
    const readMs = Date.now() - started;
    // A loaded machine reads slower than a card a second (each step's evaluate takes its time):
    // the target stretches by as much, since the page is then asked for less per second.
    const targetMs = TARGET_MS * Math.max(1, readMs / (steps * STEP_MS));
    for (let i = 0; i < CARDS; i++) {
      await waitForState(tab.page, 'ready', `card-${i}`, 60_000);
      await tab.page.waitForFunction(
        (id) => document.getElementById(id)!.shadowRoot!.querySelector<HTMLImageElement>('[part=image][src^="blob:"]')?.naturalWidth,
        `card-${i}`,
        { timeout: 60_000 },
      );
    }
    const images = answers.filter((a) => a.image >= 0);
    const lastImageMs = Math.max(...images.map((a) => a.at));
    // How long each card showed its text without its image.
    const waits = images.map((image) => image.at - answers.find((a) => a.article === image.image)!.at).sort((a, b) => a - b);
    console.log(
      `  ${CARDS} cards read in ${(readMs / 1000).toFixed(1)} s (${steps} steps); the last image in ${(lastImageMs / 1000).toFixed(1)} s ` +
        `(target ${(targetMs / 1000).toFixed(1)} s); text without image: median ${(waits[CARDS >> 1]! / 1000).toFixed(1)} s, ` +
        `max ${(waits.at(-1)! / 1000).toFixed(1)} s; ${answers.filter((a) => a.status === 429).length} of ${answers.length} API requests refused`,
    );
    const cards = [];
    for (let i = 0; i < CARDS; i++) cards.push(await readCard(tab.page, `card-${i}`));
    return { answers, lastImageMs, targetMs, cards };
  } finally {
    await tab.close();
  }
}
let feed: ReturnType<typeof readFeed>;

/** Adds cards to the page in one task, so that their requests reach the gate together. */
function mountTogether(page: Page, cards: { id: string; attributes: Record<string, string> }[], where: 'append' | 'prepend'): Promise<void> {
  return page.evaluate(
    ({ cards, where }) => {
      for (const { id, attributes } of cards) {
        const element = document.createElement('linkpeek-preview');
        element.id = id;
        for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
        document.body[where](element);
      }
    },
    { cards, where },
  );
}

test("images waiting for the budget pass in reading order, the top card first, and a provider's favicon after every image", async () => {
  // A tight budget of its own (3 requests a second) and cards added bottom first: the order the
  // requests are made in is the page's, not the order the cards were created or failed in. Each
  // card's favicon is a video provider's, which comes through the proxy only.
  const tight = await startService({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '1000' });
  const tab = await openPage(browser, { viewport: { width: 1280, height: 2000 } });
  try {
    const proxied: string[] = [];
    const statuses: number[] = [];
    tab.page.on('request', (request) => {
      const url = decodeURIComponent(request.url());
      if (url.startsWith(`${tight.baseUrl}/v1/cors-proxy`)) proxied.push(url.replace(/.*\//, ''));
    });
    tab.page.on('response', (response) => {
      if (response.url().startsWith(`${tight.baseUrl}/v1/`)) statuses.push(response.status());
    });
    await tab.reset(`${embedder.baseUrl}/embed`);
    const card = (image: string, favicon: string | null) => ({
      'data-layout': 'compact',
      'data-endpoint': tight.baseUrl,
      'data-meta': JSON.stringify(metadataFor(upstream.origin, { image: { url: `${upstream.origin}/${image}` }, favicon: { url: favicon } })),
    });
    // A first card, whose answer tells the page the budget (until then it assumes the published 20).
    await mount(tab.page, card('order-first.png', null), 'first');
    await tab.page.waitForFunction(() => document.getElementById('first')!.shadowRoot!.querySelector('img[src^="blob:"]'));
    // All at once (in one task), so that every request waits at the gate together.
    const cards = [5, 4, 3, 2, 1, 0].map((i) => ({ id: `c${i}`, attributes: card(`order-${i}.png`, `https://www.youtube.com/favicon.ico?${i}`) }));
    await mountTogether(tab.page, cards, 'prepend');
    await tab.page.waitForFunction(
      // Each image shown; each favicon hidden: the test service cannot reach www.youtube.com (502).
      () =>
        [...document.querySelectorAll('[id^=c]')].every(
          (card) => card.shadowRoot!.querySelector('[part=image][src^="blob:"]') && card.shadowRoot!.querySelector<HTMLElement>('[part=favicon]')!.hidden,
        ),
      null,
      {
        timeout: 30_000,
      },
    );
    assert.equal(statuses.sort(), [...Array<number>(7).fill(200), ...Array<number>(6).fill(502)], 'no request refused');
    // After the first card's, the 2 left pass as their direct loads fail; the others wait for the
    // budget and pass in reading order, images first.
    const [passed, waited] = [proxied.slice(1, 3), proxied.slice(3)];
    const readingOrder = [0, 1, 2, 3, 4, 5];
    const expected = [...readingOrder.map((i) => `order-${i}.png`), ...readingOrder.map((i) => `favicon.ico?${i}`)];
    assert.equal(
      waited,
      expected.filter((name) => !passed.includes(name)),
    );
  } finally {
    await tab.close();
    await tight.close();
  }
});

test("a proxied image and favicon refused with 429 are asked again after Retry-After, the top card's image first, and shown", async () => {
  const image = gradientPng(120, 63, [124, 58, 237], [252, 211, 77]);
  const arrivals: { url: string; at: number }[] = [];
  const refusedOnce = new Set<string>();
  // An API whose proxy refuses each URL's first request, and takes 300 ms to send an image.
  const api = http.createServer((req, res) => {
    arrivals.push({ url: req.url!, at: Date.now() });
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After' };
    if (!refusedOnce.has(req.url!)) {
      refusedOnce.add(req.url!);
      return res.writeHead(429, { ...cors, 'content-type': 'application/json', 'retry-after': '1' }).end('{"code":429,"message":"Too many requests."}');
    }
    setTimeout(() => res.writeHead(200, { ...cors, 'content-type': 'image/png' }).end(image), 300);
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
            metadataFor('http://127.0.0.1:9', { image: { url: `http://127.0.0.1:9/p${i}.png` }, favicon: { url: `https://www.youtube.com/i${i}.png` } }),
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
    // One asks what is left after the block (the top card's image); the others wait for its
    // answer, not one wave into a budget that may be spent again.
    assert.match(retries[0]!.url, /p0\.png/);
    for (const retry of retries.slice(1)) assert.ok(retry.at - retries[0]!.at >= 290, `${retry.url} ${retry.at - retries[0]!.at} ms after the first`);
    await snapshot(tab.page, 'proxied-after-429', 'c0');
  } finally {
    await tab.close();
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});

test("an answer that had company does not hide the budget a window's turn gave back: the next request goes before the announced reset", async () => {
  // An API that says what the script below says. The first card's answer, alone, leaves 2; the
  // next two cards ask together, and their answers (whichever the page reads first) leave 1 and
  // then 3, the window having turned meanwhile. Whatever order they were counted in, at least 2
  // are left, so the fourth card's request goes at once, not at the reset 20 s away.
  const arrivals: { url: string; at: number }[] = [];
  const held: http.ServerResponse[] = [];
  const reset = Math.ceil(Date.now() / 1000) + 20;
  const answer = (res: http.ServerResponse, remaining: number) =>
    res
      .writeHead(200, {
        'access-control-allow-origin': '*',
        'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
        'content-type': 'application/json',
        'x-ratelimit-limit': '20',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(reset),
      })
      .end(JSON.stringify(metadataFor('http://127.0.0.1:9', { image: { url: null }, favicon: { url: null } })));
  const api = http.createServer((req, res) => {
    arrivals.push({ url: req.url!, at: Date.now() });
    if (arrivals.length === 1) return answer(res, 2);
    if (arrivals.length > 3) return answer(res, 1);
    held.push(res);
    if (held.length === 2) {
      answer(held[0]!, 1);
      answer(held[1]!, 3);
    }
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const tab = await openPage(browser);
  try {
    await tab.reset(`${embedder.baseUrl}/embed`);
    const endpoint = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const card = (i: number) => ({ id: `c${i}`, attributes: { 'data-endpoint': endpoint, 'data-url': `${upstream.origin}/article-${i}` } });
    const mountAll = (cards: ReturnType<typeof card>[]) => mountTogether(tab.page, cards, 'append');
    await mountAll([card(0)]);
    await waitForState(tab.page, 'ready', 'c0');
    await mountAll([card(1), card(2)]);
    for (const id of ['c1', 'c2']) await waitForState(tab.page, 'ready', id);
    await mountAll([card(3)]);
    await waitForState(tab.page, 'ready', 'c3', 30_000);
    assert.is(arrivals.length, 4, 'one request a card');
    assert.ok(arrivals[3]!.at < reset * 1000, `the fourth card's request came ${reset * 1000 - arrivals[3]!.at} ms before the reset`);
  } finally {
    await tab.close();
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});

test(`a page of ${CARDS} cards whose images need the proxy, read at a card a second, ends with every image within 30 s, none refused, favicons not proxied`, async () => {
  const { answers, lastImageMs, targetMs, cards } = await feed;
  for (const [i, card] of cards.entries()) {
    assert.is(card.title, `Article ${i}`);
    assert.ok(card.imageLoaded && card.faviconHidden, `card-${i} has its image; its favicon, refused, hides`);
    assert.is(upstream.hits(`/photo-${i}.png`).browser, 1, 'tried directly once');
  }
  assert.equal(
    answers.map((a) => a.status),
    Array<number>(2 * CARDS).fill(200),
    'one metadata and one proxy answer per card (none for the favicon), and no refusal',
  );
  // Each answer as the page read it: the card's metadata (m) or image (i), when, and what was left.
  const timeline = answers.map((a) => `${Number.isNaN(a.image) ? `m${a.article}` : `i${a.image}`}@${a.at}:${a.remaining}`).join(' ');
  assert.ok(lastImageMs <= targetMs, `the last image came ${lastImageMs} ms after the page's start; ${timeline}`);
});

test.run();
