// The card links to, and names the domain of, the address the reader was given: the page the
// service fetched (Metadata.fetched_url, after redirects), else the URL the card was asked for;
// never the site a page claims to be with og:url. Through the running service, from a local
// upstream, on a page of another origin.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { accessibleLinks, launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor } from './metadata-fixture.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

const html = 'text/html; charset=utf-8';
/** A page that says it is the bank's sign-in page. */
const CLAIMS_A_BANK =
  '<!doctype html><title>Sign in to Bank</title><meta property="og:title" content="Sign in to your bank">' +
  '<meta property="og:site_name" content="Bank"><meta property="og:url" content="http://bank.test/login">';

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
      '/phish': { type: html, body: CLAIMS_A_BANK },
      '/short': { type: html, body: '', status: 302, location: '/landing' },
      '/landing': { type: html, body: CLAIMS_A_BANK },
    }),
  ]);
  embedder = await startAssetServer({ pages: { '/embed': testPageHtml(`${service.baseUrl}/component.js`) } });
  tab = await openPage(browser);
});

test.after(async () => {
  await tab?.close();
  await Promise.all([browser?.close(), service?.close(), upstream?.close(), embedder?.close()]);
});

test("og:url naming another site (a bank) chooses neither the card's link nor its domain", async () => {
  await tab.reset(`${embedder.baseUrl}/embed`);
  const target = `${upstream.origin}/phish`;
  await mount(tab.page, { 'data-url': target });
  await waitForState(tab.page, 'ready');
  const card = await readCard(tab.page);
  assert.is(card.title, 'Sign in to your bank');
  assert.is(card.href, target);
  assert.equal([card.host, card.domain], ['Bank', '127.0.0.1']);
  assert.not.match(card.html, 'bank.test');
  assert.is((await accessibleLinks(tab.page))[0]?.name.includes('bank.test'), false);
  await snapshot(tab.page, 'og-url-of-another-site');
});

test('after a redirect the card links to the final address the service fetched', async () => {
  await tab.reset(`${embedder.baseUrl}/embed`);
  await mount(tab.page, { 'data-url': `${upstream.origin}/short` });
  await waitForState(tab.page, 'ready');
  const card = await readCard(tab.page);
  assert.is(card.href, `${upstream.origin}/landing`);
  assert.is(card.domain, '127.0.0.1');
});

test('data-meta: fetched_url wins over url; without it, data-url; url only when neither is there', async () => {
  await tab.reset(`${embedder.baseUrl}/embed`);
  const meta = (fields: object) => JSON.stringify({ ...metadataFor('http://127.0.0.1:9', { image: { url: null }, favicon: { url: null } }), ...fields });
  const claimed = { url: 'https://bank.test/login', site_name: 'Bank' };
  await mount(tab.page, { 'data-meta': meta({ ...claimed, fetched_url: 'https://evil.example/bank' }) }, 'fetched');
  await mount(tab.page, { 'data-meta': meta(claimed), 'data-url': 'https://evil.example/asked' }, 'asked');
  await mount(tab.page, { 'data-meta': meta(claimed) }, 'only-url');
  for (const id of ['fetched', 'asked', 'only-url']) await waitForState(tab.page, 'ready', id);
  const [fetched, asked, onlyUrl] = [await readCard(tab.page, 'fetched'), await readCard(tab.page, 'asked'), await readCard(tab.page, 'only-url')];
  assert.equal([fetched.href, fetched.domain], ['https://evil.example/bank', 'evil.example']);
  assert.equal([asked.href, asked.domain], ['https://evil.example/asked', 'evil.example']);
  assert.equal([onlyUrl.href, onlyUrl.domain], ['https://bank.test/login', 'bank.test'], 'a hand-written data-meta has nothing else');
});

test.run();
