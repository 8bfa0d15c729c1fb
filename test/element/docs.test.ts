import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import type { Page } from 'playwright-core';
import { LIGHT, themeProperty, type Palette } from '../../element/palette.js';
import { DEFAULT_BUNDLE_PATH } from '../../src/assets/component-bundle.js';
import { startService, type Service } from '../helpers/service.js';
import { ARTIFACTS_DIR, launchBrowser, openPage, type TestPage } from './browser.js';
import { startUpstream, type Upstream } from './upstream-fixture.js';

// GET /docs in Chromium: Swagger UI renders openapi.yaml from LinkPeek's own origin, both data
// endpoints with their example answers, and the page asks nothing of any other origin (the
// browser's resolver knows only loopback, and every other request is recorded and aborted).
// It answers at /docs/ too, follows the reader's dark mode, its code blocks can be scrolled from
// the keyboard, and "Try it out" never sends the reserved allow_fallback.

interface Ctx {
  browser: Browser;
  svc: Service;
  upstream: Upstream;
  tab: TestPage;
  consoleErrors: string[];
}
const docs = suite<Ctx>('/docs in Chromium');
docs.before(async (ctx) => {
  ctx.browser = await launchBrowser();
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0' });
  ctx.upstream = await startUpstream({
    '/article': { type: 'text/html', body: '<!doctype html><title>Tried out</title><meta property="og:title" content="Tried out">' },
  });
  ctx.tab = await openPage(ctx.browser);
  ctx.consoleErrors = [];
  ctx.tab.page.on('console', (message) => {
    if (message.type() === 'error') ctx.consoleErrors.push(message.text());
  });
});
docs.after(async (ctx) => {
  await ctx.tab.close();
  await ctx.browser.close();
  await ctx.svc.close();
  await ctx.upstream.close();
});

/** The /v1/metadata operation's block, opened (its example answers and parameters shown). */
async function openMetadata(page: Page) {
  const metadata = page.locator('.opblock-get', { has: page.locator('[data-path="/v1/metadata"]') });
  await metadata.locator('.opblock-summary').click();
  await page.getByText('The man who built a $1bn firm in his basement').first().waitFor();
  return metadata;
}

docs('renders both data endpoints with no request leaving the origin', async ({ svc, tab, consoleErrors }) => {
  await tab.reset(`${svc.baseUrl}/docs`);
  const page = tab.page;
  const metadata = page.locator('.opblock-get', { has: page.locator('[data-path="/v1/metadata"]') });
  const proxy = page.locator('.opblock-get', { has: page.locator('[data-path="/v1/cors-proxy"]') });
  await metadata.waitFor();
  await proxy.waitFor();
  assert.match(await metadata.locator('.opblock-summary-description').innerText(), /normalized link-preview metadata/);

  // The example answer of an operation, shown when it is opened.
  await metadata.locator('.opblock-summary').click();
  await page.getByText('The man who built a $1bn firm in his basement').first().waitFor();
  await page.getByText('curl').first().waitFor();

  assert.equal(tab.blocked, [], 'nothing was asked of another origin');
  const foreign = tab.requested.filter((url) => new URL(url).origin !== svc.baseUrl);
  assert.equal(foreign, []);
  assert.ok(tab.requested.includes(`${svc.baseUrl}/openapi.yaml`), 'the reference is rendered from openapi.yaml');
  assert.ok(tab.requested.includes(`${svc.baseUrl}/docs/swagger-ui-bundle.js`));
  assert.equal(consoleErrors, [], 'no CSP violation or script error');
});

docs('/docs/ with a trailing slash shows the same reference', async ({ svc, tab, consoleErrors }) => {
  await tab.reset(`${svc.baseUrl}/docs/`);
  await tab.page.locator('[data-path="/v1/metadata"]').first().waitFor();
  await tab.page.locator('[data-path="/v1/cors-proxy"]').first().waitFor();
  assert.is(await tab.page.title(), 'LinkPeek API reference');
  assert.equal(consoleErrors, []);
});

docs("follows the reader's dark mode, also when it changes while the page is open", async ({ svc, tab }) => {
  const background = () => tab.page.evaluate(() => getComputedStyle(document.querySelector('.swagger-ui')!).backgroundColor);
  const darkClass = () => tab.page.evaluate(() => document.documentElement.classList.contains('dark-mode'));
  await tab.reset(`${svc.baseUrl}/docs`, 'dark');
  await tab.page.locator('[data-path="/v1/metadata"]').first().waitFor();
  assert.ok(await darkClass());
  assert.is(await background(), 'rgb(28, 32, 34)', "Swagger UI's dark theme");
  await tab.page.screenshot({ path: `${ARTIFACTS_DIR}docs-dark.png` });
  await tab.page.emulateMedia({ colorScheme: 'light' });
  await tab.page.waitForFunction(() => !document.documentElement.classList.contains('dark-mode'));
  assert.not.equal(await background(), 'rgb(28, 32, 34)');
  await tab.reset(`${svc.baseUrl}/docs`, 'light');
  await tab.page.locator('[data-path="/v1/metadata"]').first().waitFor();
  assert.not.ok(await darkClass());
  await tab.page.emulateMedia({ colorScheme: 'dark' });
  await tab.page.waitForFunction(() => document.documentElement.classList.contains('dark-mode'));
});

docs('every code block that scrolls has a name and can be reached with Tab and scrolled with the arrow keys', async ({ svc, tab }) => {
  await tab.reset(`${svc.baseUrl}/docs`);
  const page = tab.page;
  await openMetadata(page);
  const scrolling = await page.evaluate(() =>
    [...document.querySelectorAll('pre')]
      .filter((pre) => pre.scrollHeight > pre.clientHeight || pre.scrollWidth > pre.clientWidth)
      .map((pre) => ({ tabIndex: pre.tabIndex, role: pre.getAttribute('role'), name: pre.getAttribute('aria-label') })),
  );
  assert.ok(scrolling.length > 0, 'the long example answer scrolls');
  for (const block of scrolling) assert.equal(block, { tabIndex: 0, role: 'group', name: 'Example answer, status 200' });
  // Tab until the first scrolling block has the focus, then scroll it down with the keyboard.
  const longest = page.getByRole('group', { name: 'Example answer, status 200' }).first();
  await page.locator('.opblock-summary').first().focus();
  for (let i = 0; i < 60 && !(await longest.evaluate((pre) => pre === document.activeElement)); i++) await page.keyboard.press('Tab');
  assert.ok(await longest.evaluate((pre) => pre === document.activeElement), 'reached with Tab');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => document.activeElement!.scrollTop > 0);
});

docs('Try it out sends the url but not the reserved allow_fallback', async ({ svc, upstream, tab }) => {
  await tab.reset(`${svc.baseUrl}/docs`);
  const page = tab.page;
  const metadata = await openMetadata(page);
  await metadata.getByRole('button', { name: 'Try it out' }).click();
  const target = `${upstream.origin}/article`;
  await metadata.locator('tr[data-param-name="url"] input').fill(target);
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().startsWith(`${svc.baseUrl}/v1/metadata?`)),
    metadata.getByRole('button', { name: 'Execute' }).click(),
  ]);
  const sent = new URL(request.url());
  assert.is(sent.searchParams.get('url'), target);
  assert.not.ok(sent.searchParams.has('allow_fallback'), request.url());
  const response = await request.response();
  assert.is(response?.status(), 200);
  assert.is((await response!.json()).title, 'Tried out');
  await metadata.locator('.request-url').waitFor();
  assert.not.match(await metadata.locator('.request-url').innerText(), 'allow_fallback', 'nor shows it');
});

docs(
  "has the element's reference: every attribute, event, state, custom property and part the element has, the bundler import and the CLS figures",
  async ({ svc, tab }) => {
    await tab.reset(`${svc.baseUrl}/docs`);
    const section = tab.page.locator('.opblock-tag-section', { has: tab.page.locator('[data-tag="element"]') });
    await section.waitFor();
    const text = await section.locator('.opblock-tag').innerText();
    await section.screenshot({ path: `${ARTIFACTS_DIR}docs-element.png` });
    const component = (await readFile(DEFAULT_BUNDLE_PATH)).toString();
    // What the built element itself names: its theming properties, parts and attributes.
    // (the colours' names are made from the palette's keys as the bundle is loaded)
    const properties = [...new Set([...(Object.keys(LIGHT) as (keyof Palette)[]).map(themeProperty), ...component.match(/--linkpeek-[\w-]+/g)!])];
    const parts = [...new Set([...component.matchAll(/part="(\w+)"/g)].map((match) => match[1]!))];
    assert.ok(properties.length >= 12 && parts.length >= 13, `${properties.length} properties, ${parts.length} parts`);
    const attributes = ['data-url', 'data-meta', 'data-endpoint', 'data-layout', 'data-theme'];
    for (const attribute of attributes) assert.ok(component.includes(attribute.slice(5)), `the element reads ${attribute}`);
    const expected = [
      ...attributes,
      ...properties,
      'load',
      'error',
      ':state(loading)',
      "import 'linkpeek/element'",
      "import 'linkpeek/element/linkpeek-preview.css'",
      'CLS at 360 px',
      'CLS at 1280 px',
    ];
    const rendered = await section.locator('.opblock-tag').innerHTML();
    for (const word of expected) assert.ok(text.includes(word), word);
    for (const part of parts) assert.ok(rendered.includes(`<code>${part}</code>`), `part ${part}`);
    assert.ok(await section.locator('[data-path="/component.js"]').count(), 'the module is in the section');
  },
);

docs('the showcase page links to the reference', async ({ svc, tab }) => {
  await tab.reset(`${svc.baseUrl}/`);
  await tab.page.locator('a[href="/docs"]').click();
  await tab.page.waitForURL(`${svc.baseUrl}/docs`);
  await tab.page.locator('[data-path="/v1/metadata"]').first().waitFor();
});
docs.run();
