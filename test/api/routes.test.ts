import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { OpenAPIBackend } from 'openapi-backend';
import { OPENAPI_PATH } from '../../src/package-root.js';
import { startService } from '../helpers/service.js';

test('openapi.yaml is a valid OpenAPI document (the service starts without checking it)', async () => {
  const api = new OpenAPIBackend({ definition: OPENAPI_PATH, strict: true, validate: true });
  await api.init(); // strict, not quick: validates the document against the OpenAPI schema, throws on errors
  assert.not.throws(() => api.validateDefinition());
  assert.is(api.getOperations().length, 12);
});

test('unknown paths answer 404 JSON with CORS', async () => {
  const svc = await startService();
  try {
    const res = await svc.request('/v2/nothing?x=1');
    assert.is(res.status, 404);
    assert.equal(res.json, { code: 404, message: 'No such endpoint: /v2/nothing' });
    assert.is(res.headers.get('access-control-allow-origin'), '*');
  } finally {
    await svc.close();
  }
});

test('GET /openapi.yaml serves the contract document', async () => {
  const svc = await startService();
  try {
    const res = await svc.request('/openapi.yaml');
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'application/yaml; charset=utf-8');
    assert.is(res.text, readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  } finally {
    await svc.close();
  }
});

test('a CORS preflight is answered 204 without counting against the limit', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '1' });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${svc.baseUrl}/v1/metadata?url=x`, { method: 'OPTIONS' });
      assert.is(res.status, 204);
      assert.is(res.headers.get('access-control-allow-origin'), '*');
      assert.is(res.headers.get('access-control-allow-methods'), 'GET, HEAD');
    }
    const res = await svc.request('/v1/metadata?url=ftp://x');
    assert.is(res.status, 400);
  } finally {
    await svc.close();
  }
});

test('a request carrying our own Via is refused as a fetch loop', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const res = await svc.request('/v1/metadata?url=https://example.com/', { headers: { via: '1.1 cdn, 1.1 linkpeek' } });
    assert.is(res.status, 422);
    assert.equal(res.json, { code: 422, message: 'Requests from LinkPeek itself are refused (fetch loop).', reason: 'fetch_loop' });
    const proxied = await svc.request('/v1/cors-proxy?url=https://example.com/a.png', { headers: { via: '1.1 linkpeek' } });
    assert.is(proxied.status, 400);
    assert.equal(proxied.json, { error: 'Requests from LinkPeek itself are refused (fetch loop).' });
  } finally {
    await svc.close();
  }
});

test('an unexpected error is a 500 that shows no stack', async () => {
  const svc = await startService(
    { RATE_LIMIT_MAX: '0' },
    {
      metadata: {
        get: async () => {
          throw new TypeError('secret internals at /srv/app.js:12');
        },
        close: async () => {},
      },
    },
  );
  try {
    const res = await svc.request('/v1/metadata?url=https://example.com/');
    assert.is(res.status, 500);
    assert.equal(res.json, { code: 500, message: 'Internal server error.' });
    assert.is(res.headers.get('cache-control'), 'no-store');
    // and the service keeps answering
    const next = await svc.request('/v1/metadata?url=ftp://x');
    assert.is(next.status, 400);
  } finally {
    await svc.close();
  }
});

test('every response names its request id', async () => {
  const svc = await startService();
  try {
    const a = await svc.request('/openapi.yaml');
    const b = await svc.request('/openapi.yaml');
    assert.match(a.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.is.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
  } finally {
    await svc.close();
  }
});

test.run();
