// component.js as built and as served: the served bytes are the fresh build, the
// build is newer than its sources, it stays within 9 KB gzip, and the routes answer as the
// contract says (openapi.yaml /component.js), including before anything is built; the height
// reserve linkpeek-preview.css is built and served beside it.
import { readdirSync, readFileSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from 'vite';
import { GZIP_BUDGET_BYTES } from '../../element/vite.config.js';
import { startService } from '../helpers/service.js';
import { startAssetServer, type AssetServer } from './asset-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = path.join(ROOT, 'dist/element/component.js');

/**
 * The element's own sources. (The generated SDK it also bundles is rewritten by CI's
 * "generated/ matches openapi.yaml" step after the build, so its mtimes say nothing; the
 * byte-for-byte rebuild below covers it.)
 */
function elementSources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
  return walk(path.join(ROOT, 'element')).filter((file) => file.endsWith('.ts'));
}

let assets: AssetServer;
let missing: AssetServer;

test.before(async () => {
  [assets, missing] = await Promise.all([startAssetServer(), startAssetServer({ bundlePath: path.join(ROOT, 'dist/element/not-built.js') })]);
});
test.after(async () => {
  await Promise.all([assets?.close(), missing?.close()]);
});

test('dist/element/component.js is newer than every element/ source file', () => {
  const built = statSync(DIST).mtimeMs;
  const stale = elementSources().filter((file) => statSync(file).mtimeMs > built);
  assert.equal(
    stale.map((f) => path.relative(ROOT, f)),
    [],
    'run npm run build:element',
  );
});

test('dist/element/component.js is byte for byte what a fresh build of element/ and generated/ makes', async () => {
  const outDir = mkdtempSync(path.join(tmpdir(), 'linkpeek-element-build-'));
  try {
    await build({ configFile: path.join(ROOT, 'element/vite.config.ts'), logLevel: 'silent', build: { outDir } });
    assert.ok(readFileSync(path.join(outDir, 'component.js')).equals(readFileSync(DIST)), 'dist is stale: run npm run build:element');
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

test(`component.js is one minified ES module within ${GZIP_BUDGET_BYTES} bytes gzip`, () => {
  const bytes = readFileSync(DIST);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  console.log(`  component.js: ${bytes.length} bytes, ${gzip} bytes gzip (budget ${GZIP_BUDGET_BYTES})`);
  assert.ok(gzip <= GZIP_BUDGET_BYTES, `${gzip} bytes gzip is over budget`);
  const text = bytes.toString('utf8');
  assert.not.match(text, /\n[ \t]+\S/, 'minified: no indented lines');
  assert.not.match(text, /\/\/ |\/\*[^!]/, 'minified: no comments');
  assert.match(text, /export\s*\{/, 'an ES module');
  assert.not.match(text, /\bimport\s*[{*"'`]/, 'no imports left: one self-contained file');
  assert.match(text, 'linkpeek-preview');
});

test('GET /component.js serves the built bytes as JavaScript, cacheable for an hour, readable cross-origin', async () => {
  const res = await fetch(`${assets.baseUrl}/component.js`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/javascript; charset=utf-8');
  assert.is(res.headers.get('cache-control'), 'public, max-age=3600');
  assert.is(res.headers.get('access-control-allow-origin'), '*');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(readFileSync(DIST)));
});

test('the running service serves exactly dist/element/component.js at GET /component.js (contract-checked)', async () => {
  const service = await startService();
  try {
    const res = await service.request('/component.js');
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'application/javascript; charset=utf-8');
    assert.is(res.headers.get('cache-control'), 'public, max-age=3600');
    assert.ok(Buffer.from(res.body).equals(readFileSync(DIST)), 'served bytes differ from dist/element/component.js');
    // Loading the element does not spend the API's rate-limit budget.
    assert.is(res.headers.get('x-ratelimit-remaining'), null);
  } finally {
    await service.close();
  }
});

test('GET /linkpeek-preview.css serves element/linkpeek-preview.css as built beside component.js, cacheable, readable cross-origin', async () => {
  const res = await fetch(`${assets.baseUrl}/linkpeek-preview.css`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.is(res.headers.get('cache-control'), 'public, max-age=3600');
  assert.is(res.headers.get('access-control-allow-origin'), '*');
  const css = Buffer.from(await res.arrayBuffer());
  assert.ok(css.equals(readFileSync(path.join(ROOT, 'element/linkpeek-preview.css'))));
  assert.ok(css.equals(readFileSync(path.join(ROOT, 'dist/element/linkpeek-preview.css'))));
  assert.match(css.toString(), 'linkpeek-preview:not(:defined)');
});

test('GET /component.js before the build: 503 JSON naming the command, not cached', async () => {
  const res = await fetch(`${missing.baseUrl}/component.js`);
  assert.is(res.status, 503);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('content-type') ?? '', 'application/json');
  assert.equal(await res.json(), { code: 503, message: 'component.js is not built; run npm run build:element' });
});

test('GET / serves the showcase: URL box, live element, curl and SDK examples, link to /openapi.yaml', async () => {
  const res = await fetch(`${assets.baseUrl}/`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self' 'sha256-");
  assert.match(csp, "connect-src 'self'");
  const html = await res.text();
  assert.match(html, '<script type="module" src="/component.js"></script>');
  assert.match(html, /<input id="url" name="url" type="url" required value="https:\/\/github\.com\/"/);
  assert.match(html, '<linkpeek-preview id="preview" data-url="https://github.com/"></linkpeek-preview>');
  assert.match(html, "/v1/metadata?url=<span data-page-query>https%3A%2F%2Fgithub.com%2F</span>'");
  assert.match(html, 'curl');
  assert.match(html, "import { createClient, getMetadata } from 'linkpeek-client'");
  assert.match(html, '<a href="/openapi.yaml">openapi.yaml</a>');
});

test('GET / escapes the configured showcase URL', async () => {
  const hostile = await startAssetServer({ env: { SHOWCASE_URL: 'https://example.com/?q="><script>alert(1)</script>' } });
  try {
    const html = await (await fetch(`${hostile.baseUrl}/`)).text();
    assert.not.match(html, '<script>alert(1)</script>');
    assert.match(html, 'value="https://example.com/?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E"');
  } finally {
    await hostile.close();
  }
});

test('other paths and methods pass through to the next middleware', async () => {
  for (const [method, url] of [
    ['GET', '/component.json'],
    ['POST', '/component.js'],
    ['GET', '/index.html'],
    ['DELETE', '/'],
  ]) {
    const res = await fetch(`${assets.baseUrl}${url}`, { method });
    assert.is(res.status, 404, `${method} ${url}`);
    await res.arrayBuffer();
  }
});

test.run();
