import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OpenAPIBackend } from 'openapi-backend';
import { OPENAPI_PATH, PACKAGE_ROOT } from '../../src/package-root.js';
import { startService } from '../helpers/service.js';

// The route table (src/api/router.ts): every operation's chain declared in one place, the request
// matched once, and nothing else in src/ looking at the path.

test('every operation of openapi.yaml has a chain in the table, the static files included; only getMetadata has stored answers', async () => {
  const api = new OpenAPIBackend({ definition: OPENAPI_PATH, quick: true });
  await api.init();
  const svc = await startService();
  try {
    const ids = api.getOperations().map((op) => op.operationId!);
    assert.ok(ids.includes('getComponent') && ids.includes('getDocsFile') && ids.includes('getReserveStylesheet'));
    for (const id of ids) {
      const steps = svc.app.routes.steps(id);
      assert.ok(steps.length > 0, id);
      assert.is(
        steps.some((s) => s.name === 'cachedAnswers'),
        id === 'getMetadata',
        id,
      );
      assert.is(
        steps.some((s) => s.name === 'rateLimit'),
        id === 'getMetadata' || id === 'proxyImage',
        id,
      );
    }
  } finally {
    await svc.close();
  }
});

test("a wrong method on a data path is counted and refused in its operation's body shape; elsewhere it is not counted", async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '5' });
  try {
    const metadata = await fetch(`${svc.baseUrl}/v1/metadata?url=https://example.com/`, { method: 'POST' });
    assert.is(metadata.status, 405);
    assert.is(metadata.headers.get('allow'), 'GET, HEAD');
    assert.is(metadata.headers.get('x-ratelimit-remaining'), '4');
    assert.equal(await metadata.json(), { code: 405, message: 'POST is not allowed on /v1/metadata; use GET or HEAD.' });

    const proxy = await fetch(`${svc.baseUrl}/v1/cors-proxy?url=https://example.com/a.png`, { method: 'DELETE' });
    assert.is(proxy.status, 405);
    assert.is(proxy.headers.get('x-ratelimit-remaining'), '3');
    assert.equal(await proxy.json(), { error: 'DELETE is not allowed on /v1/cors-proxy; use GET or HEAD.' });

    const health = await fetch(`${svc.baseUrl}/healthz`, { method: 'PUT' });
    assert.is(health.status, 405);
    assert.is(health.headers.get('x-ratelimit-limit'), null);
    await health.arrayBuffer();
  } finally {
    await svc.close();
  }
});

test('the static files are answered by their operations: HEAD like GET, another method 405, another spelling 404', async () => {
  const svc = await startService();
  try {
    const get = await svc.request('/favicon.ico');
    const head = await svc.request('/favicon.ico', { method: 'HEAD' });
    assert.equal([get.status, head.status], [200, 200]);
    assert.is(head.headers.get('content-type'), get.headers.get('content-type'));
    const post = await fetch(`${svc.baseUrl}/favicon.ico`, { method: 'POST' });
    assert.is(post.status, 405);
    await post.arrayBuffer();
    const slash = await svc.request('/favicon.ico/');
    assert.equal([slash.status, slash.json], [404, { code: 404, message: 'No such endpoint: /favicon.ico/' }]);
  } finally {
    await svc.close();
  }
});

/** Every .ts file under src/. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('no module but the route table compares the request path', () => {
  // A comparison, a prefix test, or a lookup keyed by the path.
  const comparing =
    /\bctx\.(path|url|originalUrl)\s*(===|!==|==|!=)|\bctx\.(path|url|originalUrl)\.(startsWith|endsWith|includes|match)\(|\.(has|get)\(ctx\.(path|url)\)/;
  const table = path.join(PACKAGE_ROOT, 'src/api/router.ts');
  const offenders = sources(path.join(PACKAGE_ROOT, 'src'))
    .filter((file) => file !== table)
    .filter((file) => comparing.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(PACKAGE_ROOT, file));
  assert.equal(offenders, []);
  // The check would see one: the table itself matches the path.
  assert.ok(/ctx\.path/.test(readFileSync(table, 'utf8')));
});

test.run();
