// Like <img>, the element tells the page when it settled: `load` for a card, `error` for the
// error state, on the element itself and not bubbling, once per settle, again after its source
// changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, openPage, waitForState, type TestPage } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

let browser: Browser;
let service: Service;
let upstream: Upstream;
let embedder: AssetServer;
let tab: TestPage;

test.before(async () => {
  [browser, service, upstream] = await Promise.all([
    launchBrowser(),
    startService(),
    startUpstream({
      '/article': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>An article</title>' },
      '/gone': { type: 'text/html', body: '<title>gone</title>', status: 404 },
    }),
  ]);
  embedder = await startAssetServer({ pages: { '/embed': testPageHtml(`${service.baseUrl}/component.js`) } });
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), embedder?.close()]);
});

interface Settle {
  type: string;
  /** Whether the element's onload / onerror handler property ran for it too. */
  handler: boolean;
  bubbles: boolean;
  /** Whether a listener on the document's bubbling phase saw it. */
  bubbledToDocument: boolean;
}

/**
 * A fresh page where a <linkpeek-preview id=card> is created with `attributes`, with load and
 * error listeners on it before it is connected. Returns a reader of what it fired so far.
 */
async function cardWithListeners(attributes: Record<string, string>): Promise<() => Promise<Settle[]>> {
  tab ??= await openPage(browser);
  await tab.reset(`${embedder.baseUrl}/embed`);
  await tab.page.waitForFunction(() => customElements.get('linkpeek-preview'));
  await tab.page.evaluate((attributes) => {
    const seen: Settle[] = [];
    const bubbled = new Set<Event>();
    const handled = new Set<Event>();
    (window as unknown as { seen: Settle[] }).seen = seen;
    const card = document.createElement('linkpeek-preview');
    card.id = 'card';
    card.onload = card.onerror = (event) => void handled.add(event as Event);
    for (const type of ['load', 'error']) {
      document.addEventListener(type, (event) => bubbled.add(event));
      card.addEventListener(type, (event) => {
        // Read after dispatch ends, when the event has gone as far as it goes.
        setTimeout(() => seen.push({ type: event.type, handler: handled.has(event), bubbles: event.bubbles, bubbledToDocument: bubbled.has(event) }));
      });
    }
    for (const [name, value] of Object.entries(attributes)) card.setAttribute(name, value);
    document.body.append(card);
  }, attributes);
  return () => tab.page.evaluate(() => (window as unknown as { seen: Settle[] }).seen);
}

const load: Settle = { type: 'load', handler: true, bubbles: false, bubbledToDocument: false };
const error: Settle = { type: 'error', handler: true, bubbles: false, bubbledToDocument: false };

test('load fires once on the element when its card is rendered, without bubbling, and again after the source changes', async () => {
  const settles = await cardWithListeners({ 'data-url': `${upstream.origin}/article` });
  await waitForState(tab.page, 'ready', 'card');
  await tab.page.waitForFunction(() => (window as unknown as { seen: unknown[] }).seen.length > 0);
  assert.equal(await settles(), [load]);
  await tab.page.evaluate((meta) => document.getElementById('card')!.setAttribute('data-meta', meta), JSON.stringify(metadataFor(upstream.origin)));
  await tab.page.waitForFunction(() => (window as unknown as { seen: unknown[] }).seen.length > 1);
  assert.equal(await settles(), [load, load]);
});

test('error fires once on the element when it settles in the error state, without bubbling: a page the API cannot fetch, then an invalid data-meta', async () => {
  const settles = await cardWithListeners({ 'data-url': `${upstream.origin}/gone` });
  await waitForState(tab.page, 'error', 'card');
  await tab.page.waitForFunction(() => (window as unknown as { seen: unknown[] }).seen.length > 0);
  assert.equal(await settles(), [error]);
  await tab.page.evaluate(() => document.getElementById('card')!.setAttribute('data-meta', '{'));
  await tab.page.waitForFunction(() => (window as unknown as { seen: unknown[] }).seen.length > 1);
  assert.equal(await settles(), [error, error]);
});

test.run();
