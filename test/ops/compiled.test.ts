import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { OpenAPIBackend } from 'openapi-backend';
import { OPENAPI_PATH } from '../../src/package-root.js';
import { checkedRequest } from '../helpers/service.js';
import { COMPILED_MAIN, startProcess } from '../helpers/process.js';
import { respond, startUpstream } from '../helpers/upstream.js';

// `npm start` runs the compiled service (dist/server/, built by `npm ci` through `prepare`), not
// the TypeScript source: it must find the files it reads beside its code (openapi.yaml, the built
// element) from there, and answer like the source does.

test('the compiled service (npm start) serves its documents, the element and a preview', async () => {
  assert.ok(existsSync(COMPILED_MAIN), `${COMPILED_MAIN} is built (npm run build)`);
  const up = await startUpstream({ routes: { '/page': respond(200, '<title>Built</title><body>', { 'content-type': 'text/html' }) } });
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' }, 'compiled');
  try {
    const yaml = await checkedRequest(`${svc.baseUrl}/openapi.yaml`);
    assert.is(yaml.status, 200);
    assert.match(yaml.text, /^openapi: /m);
    const element = await checkedRequest(`${svc.baseUrl}/component.js`);
    assert.is(element.status, 200);
    assert.match(element.text, /customElements\.define/);
    const page = await checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url('/page').href)}`);
    assert.is(page.status, 200);
    assert.is(page.json.title, 'Built');
  } finally {
    await svc.stop('SIGKILL');
    await up.close();
  }
});

test('the compiled router reads openapi.yaml as openapi-backend dereferences it now (dist/server/openapi.json, built by build:server)', async () => {
  const api = new OpenAPIBackend({ definition: OPENAPI_PATH, quick: true, strict: true });
  await api.init();
  const built: unknown = JSON.parse(readFileSync('dist/server/openapi.json', 'utf8'));
  assert.equal(built, JSON.parse(JSON.stringify(api.definition)), 'dist/server/openapi.json is stale: npm run build:server');
});

test.run();
