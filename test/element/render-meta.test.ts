// <linkpeek-preview data-meta>: renders pre-fetched Metadata without any request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { accessibleLinks, launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

let browser: Browser;
let assets: AssetServer;
let upstream: Upstream;
let tab: TestPage;

test.before(async () => {
  [browser, assets, upstream] = await Promise.all([
    launchBrowser(),
    startAssetServer(),
    startUpstream({
      '/photo.png': { type: 'image/png', body: gradientPng(600, 314, [14, 116, 144], [250, 204, 21]) },
      '/icon.png': { type: 'image/png', body: gradientPng(32, 32, [190, 18, 60], [251, 146, 60]) },
      '/checker.png': { type: 'image/png', body: gradientPng(600, 314, [14, 116, 144], [250, 204, 21], 40) },
      '/articles/tide-pools': { type: 'text/html', body: '<!doctype html><title>Tide pools</title><h1>Tide pools</h1>' },
    }),
  ]);
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close(), upstream?.close()]);
});

/** The file's one page, on a fresh test document. */
async function freshPage(colorScheme: 'light' | 'dark' = 'light'): Promise<TestPage> {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`, colorScheme);
  return tab;
}

test('renders title, description, host, favicon and image from data-meta, as one link, without a metadata request', async () => {
  const { page, requested } = await freshPage();
  const meta = metadataFor(upstream.origin);
  await mount(page, { 'data-meta': JSON.stringify(meta) });
  await waitForState(page, 'ready');
  await page.waitForFunction(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    return [...root.querySelectorAll('img')].every((img) => img.complete && img.naturalWidth > 0);
  });
  const card = await readCard(page);
  assert.is(card.title, 'Tide pools of the northern coast');
  assert.is(card.description, meta.description);
  assert.is(card.host, '127.0.0.1');
  assert.is(card.href, `${upstream.origin}/articles/tide-pools`);
  assert.is(card.rel, 'noopener noreferrer');
  assert.is(card.ariaBusy, 'false');
  assert.is(card.imageSrc, `${upstream.origin}/photo.png`);
  assert.is(card.imageAlt, '', 'the image is decorative: the title is already the link name');
  assert.ok(card.imageLoaded);
  assert.is(card.faviconSrc, `${upstream.origin}/icon.png`);
  assert.is(card.faviconAlt, '', 'the favicon is decorative: the host name stands beside it');
  assert.not.ok(card.faviconHidden);
  assert.ok(card.badgeHidden);
  // One link: the card is the only anchor and contains every piece.
  const anchors = await page.evaluate(() => document.getElementById('preview')!.shadowRoot!.querySelectorAll('a').length);
  assert.is(anchors, 1);
  assert.equal(
    requested.filter((url) => url.includes('/v1/')),
    [],
    'data-meta makes no API request',
  );
  await snapshot(page, 'card-light');
});

test('the image is decorative (alt="") with or without og:image:alt; a missing title shows the host name', async () => {
  const { page } = await freshPage();
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { og: {} })) }, 'a');
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { title: null })) }, 'b');
  await waitForState(page, 'ready', 'a');
  await waitForState(page, 'ready', 'b');
  assert.is((await readCard(page, 'a')).imageAlt, '');
  const untitled = await readCard(page, 'b');
  assert.is(untitled.title, '127.0.0.1');
  assert.is(untitled.imageAlt, '', 'og:image:alt is not read: a screen reader would hear the picture after the title');
});

test('without an image the frame shows the cover, at the same height; a failing favicon disappears', async () => {
  const { page } = await freshPage();
  const meta = metadataFor(upstream.origin, {
    image: { url: null },
    favicon: { url: `${upstream.origin}/no-such-icon.png` },
    description: null,
  });
  await mount(page, { 'data-meta': JSON.stringify(meta) });
  await waitForState(page, 'ready');
  // The direct favicon load 404s, then the proxy on the asset server (no proxy there) 404s too.
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector<HTMLElement>('[part=favicon]')!.hidden);
  const card = await readCard(page);
  assert.ok(card.cover && !card.mediaHidden);
  assert.is(card.imageSrc, null);
  assert.ok(card.descriptionHidden);
  assert.ok(card.faviconHidden);
  assert.is(card.faviconSrc, null);
  assert.is(card.host, '127.0.0.1');
});

test('safety tags show a badge; only adult blurs the image', async () => {
  const { page } = await freshPage();
  const image = { url: `${upstream.origin}/checker.png` };
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { image, safety_tags: ['adult'] })) }, 'adult');
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { image, safety_tags: ['security_threat', 'suspicious_domain'] })) }, 'threat');
  await waitForState(page, 'ready', 'adult');
  await waitForState(page, 'ready', 'threat');
  const adult = await readCard(page, 'adult');
  assert.is(adult.badge, 'Adult content');
  assert.not.ok(adult.badgeHidden);
  assert.ok(adult.mediaBlurred);
  const threat = await readCard(page, 'threat');
  assert.is(threat.badge, 'Security threat · Suspicious site');
  assert.not.ok(threat.badgeHidden);
  assert.not.ok(threat.mediaBlurred);
  await page.waitForFunction(() => ['adult', 'threat'].every((id) => document.getElementById(id)!.shadowRoot!.querySelector('img')!.complete));
  await snapshot(page, 'safety-adult', 'adult');
  await snapshot(page, 'safety-threat', 'threat');
});

test('data-layout="compact" puts a square thumbnail beside the text', async () => {
  const { page } = await freshPage();
  const meta = JSON.stringify(metadataFor(upstream.origin));
  await mount(page, { 'data-meta': meta }, 'card');
  await mount(page, { 'data-meta': meta, 'data-layout': 'compact' }, 'compact');
  await waitForState(page, 'ready', 'card');
  await waitForState(page, 'ready', 'compact');
  const boxes = await page.evaluate(() =>
    ['card', 'compact'].map((id) => {
      const root = document.getElementById(id)!.shadowRoot!;
      const rect = (part: string) => root.querySelector(`[part=${part}]`)!.getBoundingClientRect().toJSON() as DOMRect;
      return { card: rect('card'), media: rect('media'), body: rect('body') };
    }),
  );
  const [card, compact] = boxes as [(typeof boxes)[0], (typeof boxes)[0]];
  assert.ok(card.media.bottom <= card.body.top + 1, 'card layout: image above the text');
  assert.ok(compact.media.right <= compact.body.left + 1, 'compact layout: image left of the text');
  assert.is(Math.round(compact.media.width), 104);
  assert.ok(compact.card.height < card.card.height / 2, `compact is much shorter (${compact.card.height} vs ${card.card.height})`);
  await snapshot(page, 'compact', 'compact');
});

test('prefers-color-scheme: dark switches the palette', async () => {
  const { page } = await freshPage('dark');
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin)) });
  await waitForState(page, 'ready');
  const colours = await page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    const style = (part: string) => getComputedStyle(root.querySelector(`[part=${part}]`)!);
    return { bg: style('card').backgroundColor, title: style('title').color };
  });
  assert.equal(colours, { bg: 'rgb(22, 27, 34)', title: 'rgb(230, 237, 243)' });
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('img')!.complete);
  await snapshot(page, 'card-dark');
});

test('theming: --linkpeek-* custom properties and ::part() reach inside the shadow DOM', async () => {
  const { page } = await freshPage();
  await page.addStyleTag({
    content: 'linkpeek-preview{--linkpeek-bg:#fffbe6;--linkpeek-radius:0px}' + 'linkpeek-preview::part(title){color:rgb(0, 0, 128);text-transform:uppercase}',
  });
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin)) });
  await waitForState(page, 'ready');
  const styles = await page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    const style = (part: string) => getComputedStyle(root.querySelector(`[part=${part}]`)!);
    return {
      bg: style('card').backgroundColor,
      radius: style('card').borderTopLeftRadius,
      title: style('title').color,
      transform: style('title').textTransform,
    };
  });
  assert.equal(styles, { bg: 'rgb(255, 251, 230)', radius: '0px', title: 'rgb(0, 0, 128)', transform: 'uppercase' });
});

test('attribute changes re-render: data-meta, then data-layout', async () => {
  const { page } = await freshPage();
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin)) });
  await waitForState(page, 'ready');
  await page.evaluate(
    (meta) => document.getElementById('preview')!.setAttribute('data-meta', meta),
    JSON.stringify(metadataFor(upstream.origin, { title: 'Second title', safety_tags: ['suspicious_domain'] })),
  );
  await page.waitForFunction(() => document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!.textContent === 'Second title');
  assert.is((await readCard(page)).badge, 'Suspicious site');
  const direction = () => page.evaluate(() => getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('a')!).flexDirection);
  assert.is(await direction(), 'column');
  await page.evaluate(() => document.getElementById('preview')!.setAttribute('data-layout', 'compact'));
  assert.is(await direction(), 'row');
  // Back to invalid data: the error state replaces the card.
  await page.evaluate(() => document.getElementById('preview')!.setAttribute('data-meta', '{'));
  await waitForState(page, 'error');
});

test('a data-meta that is not valid Metadata shows the error state; the link still works when a page URL is known (data-url, or a url in the broken data-meta)', async () => {
  const { page, requested } = await freshPage();
  const valid = metadataFor(upstream.origin);
  const pageUrl = `${upstream.origin}/articles/tide-pools`;
  // Each case with the link it keeps: none when no http(s) URL is known.
  const invalid: Record<string, [meta: string, href: string | null]> = {
    notJson: ['{"title": "unterminated', null],
    array: ['[]', null],
    noUrl: [JSON.stringify({ ...valid, url: undefined }), null],
    scriptUrl: [JSON.stringify({ ...valid, url: 'javascript:alert(1)', title: 42 }), null],
    numberTitle: [JSON.stringify({ ...valid, title: 42 }), pageUrl],
    imageString: [JSON.stringify({ ...valid, image: 'https://example.com/a.png' }), pageUrl],
    unknownTag: [JSON.stringify({ ...valid, safety_tags: ['nsfw'] }), pageUrl],
    noOg: [JSON.stringify({ ...valid, og: undefined }), pageUrl],
  };
  for (const [id, [meta]] of Object.entries(invalid)) await mount(page, { 'data-meta': meta }, id);
  await mount(page, { 'data-meta': 'null', 'data-url': pageUrl }, 'withUrl');
  for (const id of [...Object.keys(invalid), 'withUrl']) {
    await waitForState(page, 'error', id);
    const card = await readCard(page, id);
    assert.ok(card.cover, id);
    assert.ok(card.badgeHidden, id);
    if (id === 'withUrl') continue;
    const href = invalid[id]![1];
    assert.is(card.href, href, id);
    assert.is(card.title, href ? `${new URL(upstream.origin).host}/articles/tide-pools` : 'Preview unavailable', id);
  }
  const linked = await readCard(page, 'withUrl');
  assert.is(linked.href, `${upstream.origin}/articles/tide-pools`);
  assert.is(linked.title, `${new URL(upstream.origin).host}/articles/tide-pools`, 'the host and path are the link text');
  assert.ok(linked.descriptionHidden, 'no reason known: no second line');
  assert.is(linked.host, '');
  assert.equal(
    requested.filter((url) => url.includes('/v1/')),
    [],
    'data-meta wins over data-url: no request',
  );
  await snapshot(page, 'error-with-link', 'withUrl');
});

test('accessibility: the link is named by all it shows, in reading order: badge, title, description, host, "(opens in a new tab)"', async () => {
  const { page } = await freshPage();
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin, { safety_tags: ['adult'] })) }, 'tagged');
  await mount(page, { 'data-meta': '{}', 'data-url': `${upstream.origin}/articles/tide-pools` }, 'broken');
  await waitForState(page, 'ready', 'tagged');
  await waitForState(page, 'error', 'broken');
  assert.equal(await accessibleLinks(page), [
    { name: `Adult content Tide pools of the northern coast ${metadataFor(upstream.origin).description} 127.0.0.1 (opens in a new tab)`, description: '' },
    { name: `${new URL(upstream.origin).host}/articles/tide-pools (opens in a new tab)`, description: '' },
  ]);
  // A re-render without tags leaves no stale badge text in the name.
  await page.evaluate(
    (meta) => document.getElementById('tagged')!.setAttribute('data-meta', meta),
    JSON.stringify(metadataFor(upstream.origin, { title: 'Untagged' })),
  );
  await page.waitForFunction(() => document.getElementById('tagged')!.shadowRoot!.querySelector('[part=title]')!.textContent === 'Untagged');
  assert.is((await accessibleLinks(page))[0]!.name, `Untagged ${metadataFor(upstream.origin).description} 127.0.0.1 (opens in a new tab)`);
});

test('host.focus() focuses the card link (the shadow root delegates focus)', async () => {
  const { page } = await freshPage();
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin)) });
  await waitForState(page, 'ready');
  const focus = await page.evaluate(() => {
    const host = document.getElementById('preview')!;
    host.focus();
    return { host: document.activeElement === host, part: host.shadowRoot!.activeElement?.getAttribute('part') };
  });
  assert.equal(focus, { host: true, part: 'card' });
});

test('keyboard: Tab focuses the card with a visible ring, Enter opens the page in a new tab', async () => {
  const { page } = await freshPage();
  await mount(page, { 'data-meta': JSON.stringify(metadataFor(upstream.origin)) });
  await waitForState(page, 'ready');
  await page.keyboard.press('Tab');
  const focus = await page.evaluate(() => {
    const host = document.getElementById('preview')!;
    const active = host.shadowRoot!.activeElement as HTMLElement | null;
    const style = active && getComputedStyle(active);
    return { host: document.activeElement === host, part: active?.getAttribute('part'), outline: style && `${style.outlineStyle} ${style.outlineWidth}` };
  });
  assert.equal(focus, { host: true, part: 'card', outline: 'solid 3px' });
  await snapshot(page, 'focused');
  const [popup] = await Promise.all([page.context().waitForEvent('page'), page.keyboard.press('Enter')]);
  await popup.waitForLoadState();
  assert.is(popup.url(), `${upstream.origin}/articles/tide-pools`);
  assert.is(await popup.evaluate(() => window.opener), null, 'rel=noopener');
  assert.is(await popup.evaluate(() => document.referrer), '', 'rel=noreferrer');
  await popup.close();
});

test.run();
