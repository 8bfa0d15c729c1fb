// GET / in a real browser: the URL box drives a live <linkpeek-preview> against the
// running service, the examples name the service's origin and follow the chosen layout, a URL
// that is not http(s) gets its reason, the code blocks scroll from the keyboard, /openapi.yaml is
// one click away, the origin has an icon, and the page's own CSP blocks nothing it needs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { ARTIFACTS_DIR, launchBrowser, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { gradientPng } from './png.js';
import { startUpstream, type Upstream, type UpstreamRoute } from './upstream-fixture.js';

let browser: Browser;
let service: Service;
let upstream: Upstream;
let tab: TestPage;
const violations: string[] = [];

const page = (origin: string, title: string) =>
  `<!doctype html><title>${title}</title><meta property="og:title" content="${title}"><meta property="og:image" content="${origin}/hero.png"><meta name="description" content="Showcase fixture page.">`;

test.before(async () => {
  const routes: Record<string, UpstreamRoute> = {
    '/hero.png': { type: 'image/png', body: gradientPng(600, 314, [67, 56, 202], [236, 72, 153]) },
  };
  [browser, upstream] = await Promise.all([launchBrowser(), startUpstream(routes)]);
  routes['/home'] = { type: 'text/html', body: page(upstream.origin, 'The showcase default') };
  routes['/typed'] = { type: 'text/html', body: page(upstream.origin, 'A page typed into the box') };
  service = await startService({ SHOWCASE_URL: `${upstream.origin}/home` });
  tab = await openPage(browser);
  tab.page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await tab.reset(`${service.baseUrl}/`);
});

test.after(async () => {
  await Promise.all([browser?.close(), service?.close(), upstream?.close()]);
});

test('the element renders the default URL live, with the examples naming this origin', async () => {
  await waitForState(tab.page, 'ready');
  const card = await readCard(tab.page);
  assert.is(card.title, 'The showcase default');
  assert.is(card.href, `${upstream.origin}/home`);
  const text = await tab.page.locator('main').innerText();
  assert.match(text, `<script type="module" src="${service.baseUrl}/component.js"></script>`);
  assert.match(text, `curl '${service.baseUrl}/v1/metadata?url=${encodeURIComponent(`${upstream.origin}/home`)}'`);
  assert.match(text, `createClient({ baseUrl: '${service.baseUrl}' })`);
  await snapshot(tab.page, 'showcase-card');
  await tab.page.screenshot({ path: `${ARTIFACTS_DIR}showcase-page.png`, fullPage: true });
});

test('typing a URL and pressing Enter re-renders the element; the layout menu switches to compact', async () => {
  const typed = `${upstream.origin}/typed`;
  await tab.page.fill('#url', typed);
  await tab.page.press('#url', 'Enter');
  await tab.page.waitForFunction(
    () => document.getElementById('preview')!.shadowRoot!.querySelector('[part=title]')!.textContent === 'A page typed into the box',
  );
  assert.is((await readCard(tab.page)).href, typed);
  assert.is(new URL(tab.page.url()).searchParams.get('url'), typed, 'the address bar can be shared');
  const examples = await tab.page.locator('main').innerText();
  assert.match(examples, `curl '${service.baseUrl}/v1/metadata?url=${encodeURIComponent(typed)}'`, 'the examples follow the box');
  assert.match(examples, `<linkpeek-preview data-url="${typed}"></linkpeek-preview>`);
  await tab.page.selectOption('select[name=layout]', 'compact');
  assert.is(await tab.page.getAttribute('#preview', 'data-layout'), 'compact');
});

test('a shared ?url= address opens with that page in the box', async () => {
  await tab.page.goto(`${service.baseUrl}/?url=${encodeURIComponent(`${upstream.origin}/typed`)}`);
  await waitForState(tab.page, 'ready');
  assert.is(await tab.page.inputValue('#url'), `${upstream.origin}/typed`);
  assert.is((await readCard(tab.page)).title, 'A page typed into the box');
});

test('the openapi.yaml link opens the contract', async () => {
  const [response] = await Promise.all([tab.page.waitForResponse(`${service.baseUrl}/openapi.yaml`), tab.page.click('a[href="/openapi.yaml"]')]);
  assert.is(response.status(), 200);
  assert.match(response.headers()['content-type'] ?? '', 'application/yaml');
});

test('the embed snippet follows the chosen layout', async () => {
  await tab.reset(`${service.baseUrl}/`);
  await waitForState(tab.page, 'ready');
  const embed = tab.page.getByRole('group', { name: 'Embed it' });
  const url = `${upstream.origin}/home`;
  // The height reserve first: without it a card shifts the text below it (the CLS figures of
  // element/README.md are measured with these two lines).
  assert.ok(
    (await embed.innerText()).startsWith(
      `<link rel="stylesheet" href="${service.baseUrl}/linkpeek-preview.css">\n<script type="module" src="${service.baseUrl}/component.js"></script>\n`,
    ),
  );
  assert.match(await embed.innerText(), `<linkpeek-preview data-url="${url}"></linkpeek-preview>`);
  await tab.page.selectOption('select[name=layout]', 'compact');
  assert.match(await embed.innerText(), `<linkpeek-preview data-url="${url}" data-layout="compact"></linkpeek-preview>`);
  await tab.page.selectOption('select[name=layout]', 'card');
  assert.match(await embed.innerText(), `<linkpeek-preview data-url="${url}"></linkpeek-preview>`);
});

test('an ftp:// URL gets its reason beside the box, which goes when an http one follows', async () => {
  await tab.reset(`${service.baseUrl}/`);
  const reason = tab.page.getByRole('status');
  assert.not.ok(await reason.isVisible(), 'no reason for the default URL');
  await tab.page.fill('#url', 'ftp://127.0.0.1/pub/file.txt');
  await tab.page.press('#url', 'Enter');
  await reason.waitFor();
  assert.is(await reason.innerText(), 'LinkPeek previews http:// and https:// pages only, not ftp:// addresses.');
  await waitForState(tab.page, 'error');
  await tab.page.screenshot({ path: `${ARTIFACTS_DIR}showcase-ftp-reason.png` });
  await tab.page.fill('#url', `${upstream.origin}/typed`);
  await tab.page.press('#url', 'Enter');
  await reason.waitFor({ state: 'hidden' });
  await waitForState(tab.page, 'ready');
});

test('each code block has its heading as its name, and one that overflows scrolls from the keyboard', async () => {
  await tab.reset(`${service.baseUrl}/`);
  for (const name of ['Embed it', 'curl', 'SDK (TypeScript)']) {
    assert.is(await tab.page.getByRole('group', { name }).getAttribute('tabindex'), '0', name);
  }
  const sdk = tab.page.getByRole('group', { name: 'SDK (TypeScript)' });
  assert.ok(await sdk.evaluate((pre) => pre.scrollWidth > pre.clientWidth), 'its longest line overflows at this width');
  await tab.page.focus('button[type=submit]');
  for (let i = 0; i < 10 && !(await sdk.evaluate((pre) => pre === document.activeElement)); i++) await tab.page.keyboard.press('Tab');
  assert.ok(await sdk.evaluate((pre) => pre === document.activeElement), 'reached with Tab');
  await tab.page.keyboard.press('ArrowRight');
  await tab.page.keyboard.press('End');
  await tab.page.waitForFunction(() => document.activeElement!.scrollLeft > 0);
});

test('/favicon.ico is a 32×32 icon the page can show', async () => {
  await tab.reset(`${service.baseUrl}/`);
  const size = await tab.page.evaluate(
    () =>
      new Promise<number[] | null>((resolve) => {
        const icon = new Image();
        icon.onload = () => resolve([icon.naturalWidth, icon.naturalHeight]);
        icon.onerror = () => resolve(null);
        // Playwright aborts every request whose URL ends in /favicon.ico while routes are set
        // (browser.ts routes other origins away): a query keeps this one its own.
        icon.src = '/favicon.ico?shown-in-a-page';
        icon.id = 'icon';
        icon.style.cssText = 'width:128px;height:128px;image-rendering:pixelated';
        document.body.prepend(icon);
      }),
  );
  assert.equal(size, [32, 32]);
  await tab.page.locator('#icon').screenshot({ path: `${ARTIFACTS_DIR}favicon.png` });
});

test('the showcase CSP blocked nothing', () => {
  assert.equal(violations, []);
  assert.equal(tab.blocked, []);
});

test.run();
