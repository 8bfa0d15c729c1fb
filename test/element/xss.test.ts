// Untrusted data: text goes in as text, only http(s) URLs reach href and src, and
// nothing a page or an upstream writes can run script. Each attack is its own test.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import type { Metadata } from '../../generated/types.gen.js';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, waitForSettled, waitForState, type TestPage } from './browser.js';
import { metadataFor } from './metadata-fixture.js';

const ORIGIN = 'http://127.0.0.1:9';

let browser: Browser;
let assets: AssetServer;
let tab: TestPage;
let requested: string[];

test.before(async () => {
  [browser, assets] = await Promise.all([launchBrowser(), startAssetServer()]);
});
test.after(async () => {
  await Promise.all([browser?.close(), assets?.close()]);
});
test.before.each(async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  requested = tab.requested;
  await tab.page.evaluate(() => {
    (window as unknown as { pwned: number }).pwned = 0;
  });
});

/** Renders `meta` and returns the card once ready, after checking no script ran. */
async function render(meta: Metadata | Record<string, unknown>, state: 'ready' | 'error' = 'ready') {
  await mount(tab.page, { 'data-meta': JSON.stringify(meta) });
  await waitForState(tab.page, state);
  await tab.page.waitForTimeout(100); // let any injected handler (onerror...) fire
  const pwned = await tab.page.evaluate(() => (window as unknown as { pwned: number }).pwned);
  assert.is(pwned, 0, 'no injected script ran');
  assert.equal(tab.dialogs, [], 'no dialog opened');
  return readCard(tab.page);
}

const MARKUP = '<img src=x onerror="window.pwned=1;alert(1)"><script>window.pwned=2</script>';

test('markup in title and description is shown as text, not parsed', async () => {
  const card = await render(metadataFor(ORIGIN, { title: MARKUP, description: `</div><svg onload="window.pwned=3">${MARKUP}` }));
  assert.is(card.title, MARKUP);
  assert.is(card.description, `</div><svg onload="window.pwned=3">${MARKUP}`);
  const injected = await tab.page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelectorAll('script, svg, img:not([part])').length);
  assert.is(injected, 0);
});

test('markup in the image alt (og:image:alt) never reaches the DOM: the image is decorative', async () => {
  const card = await render(metadataFor(ORIGIN, { og: { 'og:image:alt': `" onerror="window.pwned=4` } }));
  assert.is(card.imageAlt, '');
  assert.not.match(card.html, 'pwned');
  const handlers = await tab.page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=image]')!.getAttributeNames());
  assert.not.ok(
    handlers.some((name) => name.startsWith('on')),
    handlers.join(','),
  );
});

test('a javascript: page url never reaches href: the card is the error state, not a link', async () => {
  const card = await render(metadataFor(ORIGIN, { url: 'javascript:window.pwned=5' }), 'error');
  assert.is(card.href, null);
  assert.is(card.title, 'Preview unavailable');
  assert.is(card.host, '');
  assert.not.match(card.html, 'javascript:');
  // The card is not a link, so it is not focusable and a click does nothing.
  await tab.page.locator('#preview').click();
  assert.is(await tab.page.evaluate(() => (window as unknown as { pwned: number }).pwned), 0);
});

test('data:, javascript: and relative image and favicon URLs never reach src', async () => {
  const card = await render(
    metadataFor(ORIGIN, {
      image: { url: 'data:image/svg+xml,<svg xmlns="http://www.w3.org/2000/svg" onload="window.pwned=6"/>' },
      favicon: { url: 'javascript:window.pwned=7' },
    }),
  );
  assert.is(card.imageSrc, null);
  assert.ok(card.cover);
  assert.is(card.faviconSrc, null);
  assert.ok(card.faviconHidden);
  const card2 = await (async () => {
    await tab.page.evaluate(
      (meta) => document.getElementById('preview')!.setAttribute('data-meta', meta),
      JSON.stringify(metadataFor(ORIGIN, { image: { url: '/relative.png' }, favicon: { url: '//127.0.0.1:9/icon.png' } })),
    );
    await tab.page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector<HTMLElement>('[part=favicon]')!.hidden);
    return readCard(tab.page);
  })();
  assert.is(card2.imageSrc, null);
  assert.is(card2.faviconSrc, null);
  assert.not.ok(
    requested.some((url) => url.includes('relative.png') || url.includes('icon.png')),
    requested.join('\n'),
  );
});

test('an image URL with query and fragment characters is encoded once into the proxy URL', async () => {
  // Direct load fails (nothing listens on port 9), so the element falls back to the proxy.
  const tricky = `${ORIGIN}/a.png?x=1&url=javascript:alert(1)#"><b>`;
  const proxyRequest = `${assets.baseUrl}/v1/cors-proxy?url=${encodeURIComponent(new URL(tricky).href)}`;
  const seen = tab.page.waitForRequest(proxyRequest, { timeout: 5000 });
  await render(metadataFor(ORIGIN, { image: { url: tricky } }));
  await seen;
  assert.ok(requested.includes(proxyRequest));
});

test('data-url with javascript: or data: is refused without a request: error state, no href', async () => {
  for (const [id, url] of [
    ['js', 'javascript:window.pwned=8'],
    ['data', 'data:text/html,<script>window.pwned=9</script>'],
    ['relative', '/v1/metadata'],
  ]) {
    await mount(tab.page, { 'data-url': url! }, id);
    await waitForState(tab.page, 'error', id);
    const card = await readCard(tab.page, id);
    assert.is(card.href, null, id);
    assert.is(card.title, 'Preview unavailable', id);
  }
  assert.not.ok(
    requested.some((url) => url.includes('/v1/metadata')),
    requested.join('\n'),
  );
  assert.is(await tab.page.evaluate(() => (window as unknown as { pwned: number }).pwned), 0);
});

test('a data-endpoint that is not http(s) is refused: no request to it', async () => {
  await mount(tab.page, { 'data-url': `${ORIGIN}/page`, 'data-endpoint': 'javascript:window.pwned=10//' });
  await waitForState(tab.page, 'error');
  const card = await readCard(tab.page);
  assert.is(card.href, `${ORIGIN}/page`, 'the link to the page still works');
  assert.not.ok(requested.some((url) => url.includes('/v1/metadata')));
});

test('embed.html is never read: a script and an img onerror in it do nothing', async () => {
  const html = '<script>window.pwned=11</script><img src="http://127.0.0.1:9/embed-x.png" onerror="window.pwned=12;alert(12)">';
  const embed = {
    type: 'video' as const,
    provider_name: 'VideoSite',
    provider_url: `${ORIGIN}/`,
    title: 'A video',
    author_name: null,
    author_url: null,
    thumbnail_url: null,
    thumbnail_width: null,
    thumbnail_height: null,
    width: 640,
    height: 360,
    html,
  };
  const card = await render(metadataFor(ORIGIN, { embed }));
  assert.not.match(card.html, 'pwned');
  assert.not.match(card.html, 'embed-x');
  const injected = await tab.page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelectorAll('script, iframe, img:not([part])').length);
  assert.is(injected, 0);
  assert.not.ok(
    requested.some((url) => url.includes('embed-x')),
    requested.join('\n'),
  );
});

test('a theme_color carrying more CSS sets nothing and loads nothing', async () => {
  for (const theme_color of [
    'red;background:url(http://127.0.0.1:9/css-x.png)',
    'url(http://127.0.0.1:9/css-y.png)',
    'red}a{background:url(http://127.0.0.1:9/css-z.png)',
  ]) {
    await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor(ORIGIN, { theme_color })) });
    await waitForSettled(tab.page); // a stricter data-meta check may refuse it: the error state
    await tab.page.waitForTimeout(100); // a request that must not happen has no event to wait for
    const card = await readCard(tab.page);
    assert.is(card.accent, null, theme_color);
    const style = await tab.page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!.getAttribute('style') ?? '');
    assert.not.match(style, 'url', theme_color);
    await tab.page.evaluate(() => document.getElementById('preview')!.remove());
  }
  assert.not.ok(
    requested.some((url) => url.includes('css-')),
    requested.join('\n'),
  );
  assert.is(await tab.page.evaluate(() => (window as unknown as { pwned: number }).pwned), 0);
});

test('prototype-polluting keys in data-meta are plain data', async () => {
  await render(metadataFor(ORIGIN));
  const viaString = '{"url":"http://127.0.0.1:9/","image":{},"favicon":{},"og":{},"twitter":{},"__proto__":{"title":"polluted"}}';
  await tab.page.evaluate((meta) => document.getElementById('preview')!.setAttribute('data-meta', meta), viaString);
  await tab.page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!.textContent === '127.0.0.1');
  assert.is(await tab.page.evaluate(() => (({}) as { title?: string }).title), undefined);
});

test.run();
