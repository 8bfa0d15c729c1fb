// Play in place: a click on a YouTube or Vimeo card's play badge swaps the image for the
// provider's player, in a sandboxed iframe with an allow-list, at the provider's documented embed
// URL built from the ID in the page URL; nothing is requested from the provider before the click.
// The provider's hosts are answered by the test (playwright routing): no request leaves the machine.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

const PROVIDER_HOSTS = /^https:\/\/(www\.youtube-nocookie\.com|player\.vimeo\.com|www\.youtube\.com|vimeo\.com|evil\.example)\//;

let browser: Browser;
let assets: AssetServer;
let upstream: Upstream;
let service: Service;
let tab: TestPage;
/** Requests that reached the stand-in provider. */
const providerRequests: string[] = [];

test.before(async () => {
  [browser, assets, upstream, service] = await Promise.all([
    launchBrowser(),
    startAssetServer(),
    startUpstream({ '/thumb.png': { type: 'image/png', body: gradientPng(480, 270, [190, 18, 60], [250, 204, 21]) } }),
    startService(),
  ]);
  tab = await openPage(browser);
  await tab.page.route(PROVIDER_HOSTS, (route) => {
    providerRequests.push(route.request().url());
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><body style="margin:0;background:#111;color:#fff;font:20px sans-serif">stand-in player</body>',
    });
  });
});

test.after(async () => {
  // The page's context first: closing the browser at the same time races it ("context has been closed").
  await tab?.close();
  await Promise.all([browser?.close(), assets?.close(), upstream?.close(), service?.close()]);
});

/** embed.html names a different player: it must never be the one loaded. */
const EMBED = {
  type: 'video' as const,
  provider_name: 'YouTube',
  provider_url: 'https://www.youtube.com/',
  title: 'Low tide, time-lapse',
  author_name: null,
  author_url: null,
  thumbnail_url: null,
  thumbnail_width: null,
  thumbnail_height: null,
  width: 640,
  height: 360,
  html: '<iframe src="https://evil.example/player"></iframe>',
};

async function videoCard(url: string, overrides: Partial<DataMeta> = {}) {
  await tab.reset(`${assets.baseUrl}/test-page`);
  providerRequests.length = 0;
  await mount(tab.page, {
    'data-meta': JSON.stringify(
      metadataFor(upstream.origin, {
        url,
        title: 'Low tide, time-lapse',
        image: { url: `${upstream.origin}/thumb.png`, width: 480, height: 270 },
        embed: EMBED,
        ...overrides,
      }),
    ),
  });
  await waitForState(tab.page, 'ready');
  await tab.page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('img')!.complete);
}

const frame = () =>
  tab.page.evaluate(() => {
    const iframe = document.getElementById('preview')!.shadowRoot!.querySelector('iframe');
    return (
      iframe && { src: iframe.src, sandbox: iframe.getAttribute('sandbox'), allow: iframe.allow, title: iframe.title, referrerPolicy: iframe.referrerPolicy }
    );
  });

const cases: [name: string, pageUrl: string, player: string][] = [
  ['YouTube watch page', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1'],
  ['youtu.be link', 'https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1'],
  ['YouTube short', 'https://www.youtube.com/shorts/aqz-KE-bpKQ', 'https://www.youtube-nocookie.com/embed/aqz-KE-bpKQ?autoplay=1'],
  ['Vimeo page', 'https://vimeo.com/76979871', 'https://player.vimeo.com/video/76979871?autoplay=1'],
];

for (const [name, pageUrl, player] of cases) {
  test(`${name}: nothing from the provider before the click; the click plays ${player} in place, sandboxed`, async () => {
    await videoCard(pageUrl);
    assert.is(await frame(), null);
    assert.equal(providerRequests, [], 'no request to the provider before the click');
    assert.equal(tab.blocked, []);
    const pages = tab.page.context().pages().length;
    const loaded = tab.page.waitForRequest(player);
    await tab.page.locator('#preview').locator('[part=play]').click();
    await loaded;
    assert.equal(await frame(), {
      src: player,
      sandbox: 'allow-scripts allow-same-origin allow-presentation',
      allow: 'autoplay; encrypted-media; fullscreen; picture-in-picture',
      title: 'Low tide, time-lapse',
      referrerPolicy: 'strict-origin-when-cross-origin',
    });
    assert.ok(providerRequests.includes(player), `the player was loaded: ${providerRequests.join(', ')}`);
    assert.not.ok(
      providerRequests.some((url) => url.includes('evil.example')),
      'embed.html is never read',
    );
    assert.is(tab.page.context().pages().length, pages, 'the link was not followed');
  });
}

test('the player fills the image frame', async () => {
  await videoCard(cases[0]![1]);
  const loaded = tab.page.waitForRequest(cases[0]![2]);
  await tab.page.locator('#preview').locator('[part=play]').click();
  await loaded;
  const boxes = await tab.page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    return [root.querySelector('iframe')!, root.querySelector('[part=media]')!].map((el) => el.getBoundingClientRect().toJSON() as DOMRect);
  });
  assert.equal(boxes[0], boxes[1]);
  await tab.page.waitForLoadState('load');
  await snapshot(tab.page, 'play-in-place');
});

test("an ID that is not of the provider's form, or another site with a video embed, keeps the link: no player", async () => {
  for (const url of [
    'https://www.youtube.com/watch?v=short',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ/../x',
    'https://vimeo.com/channels/staffpicks',
    `${upstream.origin}/video`,
  ]) {
    await videoCard(url);
    const card = await readCard(tab.page);
    assert.is(card.href, new URL(url).href);
    assert.is(
      await tab.page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=play]')!.getAttribute('aria-label')),
      'Video',
      'the embed still marks a video',
    );
    // The page keeps the link from opening a tab; the card's own handler has run by then.
    await tab.page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    await tab.page.locator('#preview').locator('[part=play]').click();
    assert.is(await frame(), null, url);
    assert.equal(providerRequests, [], url);
  }
});

test('Enter on a video card plays it in place, as a click does; Enter once it plays opens the page', async () => {
  const [, pageUrl, player] = cases[0]!;
  await videoCard(pageUrl);
  await tab.page.keyboard.press('Tab');
  const loaded = tab.page.waitForRequest(player);
  await tab.page.keyboard.press('Enter');
  await loaded;
  assert.is((await frame())?.src, player);
  assert.is(tab.page.context().pages().length, 1, 'the link was not followed');
  const opened = tab.page.context().waitForEvent('request', (request) => request.url() === pageUrl);
  await tab.page.keyboard.press('Enter');
  await opened;
  for (const other of tab.page.context().pages()) if (other != tab.page) await other.close();
});

/** The hosts YouTube and Vimeo serve a page's thumbnail and icon from. */
const PROVIDER_IMAGE_HOSTS = /^https?:\/\/([\w-]+\.)*(youtube|ytimg|vimeo|vimeocdn)\.com\//;

test('network log: a page of YouTube and Vimeo cards asks nothing of either provider before a click; their images come through the proxy', async () => {
  await tab.reset(`${assets.baseUrl}/test-page`);
  providerRequests.length = 0;
  const videos = [
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://i.ytimg.com/vi/dQw4w9WgXcQ/maxresdefault.jpg', 'https://www.youtube.com/s/desktop/favicon.ico'],
    ['https://vimeo.com/76979871', 'https://i.vimeocdn.com/video/452001751-1280x720.jpg', 'https://f.vimeocdn.com/images_v6/favicon.ico'],
  ];
  for (const [i, [url, image, favicon]] of videos.entries())
    await mount(
      tab.page,
      {
        'data-endpoint': service.baseUrl,
        'data-meta': JSON.stringify(
          metadataFor(upstream.origin, { url, image: { url: image, width: 1280, height: 720 }, favicon: { url: favicon }, embed: EMBED }),
        ),
      },
      `v${i}`,
    );
  const proxied = videos.flatMap(([, ...images]) => images.map((image) => `${service.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(image)}`));
  const proxyRequests = () => tab.requested.filter((url) => url.includes('/v1/cors-proxy'));
  await until(() => proxyRequests().length == proxied.length, 'the four images asked of the proxy');
  assert.equal(
    tab.requested.filter((url) => PROVIDER_IMAGE_HOSTS.test(url)),
    [],
    'no request to a provider',
  );
  assert.equal(proxyRequests().sort(), proxied.sort());
  assert.equal(providerRequests, []);
});

test.run();
