import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../helpers/service.js';
import { launchBrowser, openPage, type TestPage } from './browser.js';

// GET /docs in Chromium: Swagger UI renders openapi.yaml from LinkPeek's own origin, both data
// endpoints with their example answers, and the page asks nothing of any other origin (the
// browser's resolver knows only loopback, and every other request is recorded and aborted).

interface Ctx {
  browser: Browser;
  svc: Service;
  tab: TestPage;
  consoleErrors: string[];
}
const docs = suite<Ctx>('/docs in Chromium');
docs.before(async (ctx) => {
  ctx.browser = await launchBrowser();
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0' });
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
});

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

docs('the showcase page links to the reference', async ({ svc, tab }) => {
  await tab.reset(`${svc.baseUrl}/`);
  await tab.page.locator('a[href="/docs"]').click();
  await tab.page.waitForURL(`${svc.baseUrl}/docs`);
  await tab.page.locator('[data-path="/v1/metadata"]').first().waitFor();
});
docs.run();
