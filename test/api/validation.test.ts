import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';

// Every validation rule on both data endpoints, with exact bodies. No upstream is
// needed: each of these is refused before any socket opens.
const metadata = suite<{ svc: Service }>('metadata validation');
metadata.before(async (ctx) => {
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', ALLOW_PRIVATE_NETWORKS: 'false' });
});
metadata.after(async (ctx) => ctx.svc.close());

const q = (params: Record<string, string>) => `/v1/metadata?${new URLSearchParams(params)}`;

const PRIVATE_MESSAGE = 'must not point to a private, loopback or reserved address; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true';

function urlError(message: string) {
  return { success: false, errors: [{ code: 400, message, path: ['query', 'url'] }] };
}

// The 302 of a request without `url` has its own file: api/showcase-redirect.test.ts.

metadata('an unknown prefer is a 400 naming the allowed values', async ({ svc }) => {
  const res = await svc.request(q({ url: 'https://example.com/', prefer: 'facebook' }));
  assert.is(res.status, 400);
  assert.equal(res.json, {
    success: false,
    errors: [{ code: 400, message: 'must be equal to one of the allowed values: og, twitter', path: ['query', 'prefer'] }],
  });
});

metadata('allow_fallback accepts only true or false', async ({ svc }) => {
  const res = await svc.request(q({ url: 'https://example.com/', allow_fallback: 'maybe' }));
  assert.is(res.status, 400);
  assert.equal(res.json, {
    success: false,
    errors: [{ code: 400, message: 'must be boolean', path: ['query', 'allow_fallback'] }],
  });
});

metadata('several problems are reported together, one entry each', async ({ svc }) => {
  const res = await svc.request(q({ url: 'javascript:alert(1)', prefer: 'x' }));
  assert.is(res.status, 400);
  assert.equal(res.json.errors, [
    { code: 400, message: 'must be equal to one of the allowed values: og, twitter', path: ['query', 'prefer'] },
    { code: 400, message: 'must be an absolute http or https URL, not javascript:', path: ['query', 'url'] },
  ]);
});

const badUrls: Array<[string, string, string]> = [
  ['javascript: scheme', 'javascript:alert(1)', 'must be an absolute http or https URL, not javascript:'],
  ['file: scheme', 'file:///etc/passwd', 'must be an absolute http or https URL, not file:'],
  ['data: scheme', 'data:text/html,<b>x</b>', 'must be an absolute http or https URL, not data:'],
  ['host and port without a scheme', 'site.test:33947/', 'must be an absolute http or https URL, not site.test:; did you mean http://site.test:33947/?'],
  ['relative url', '/just/a/path', 'must be an absolute http or https URL'],
  ['unparseable url', 'http://exa mple.com/', 'must be an absolute http or https URL'],
  ['credentials in url', 'https://user:password@example.com/', 'must not contain credentials (user:password@)'],
  ['url over 4096 characters', `https://example.com/${'a'.repeat(4100)}`, 'must NOT have more than 4096 characters'],
  ['CR/LF in url', 'https://example.com/\r\nX-Injected: 1', 'must not contain control characters (CR, LF, tab, NUL...)'],
];
for (const [name, url, message] of badUrls) {
  metadata(`${name} is a 400`, async ({ svc }) => {
    const res = await svc.request(q({ url }));
    assert.is(res.status, 400);
    assert.equal(res.json, urlError(message));
  });
}

metadata('a repeated url parameter is a 400 that says it is repeated', async ({ svc }) => {
  const res = await svc.request('/v1/metadata?url=https://a.example/&url=https://b.example/');
  assert.is(res.status, 400);
  assert.equal(res.json, urlError('must be given once, not 2 times'));
});

metadata('a private address is a 400 that tells a self-hoster about ALLOW_PRIVATE_NETWORKS', async ({ svc }) => {
  const res = await svc.request(q({ url: 'http://192.168.1.10/' }));
  assert.is(res.status, 400);
  assert.equal(res.json, urlError(PRIVATE_MESSAGE));
  const local = await svc.request(q({ url: 'http://localhost:8080/' }));
  assert.equal(local.json, urlError('must not point to localhost; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true'));
});

metadata('unknown query parameters are tolerated (utm tags)', async ({ svc }) => {
  // Valid request: it goes on to the fetch, which the blocked loopback turns into a 400 here.
  const res = await svc.request(q({ url: 'http://127.0.0.1/', utm_source: 'x' }));
  assert.is(res.status, 400);
  assert.equal(res.json, urlError(PRIVATE_MESSAGE));
});

metadata('400s carry no-store and CORS', async ({ svc }) => {
  const res = await svc.request(q({ url: 'ftp://example.com/' }));
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is(res.headers.get('access-control-allow-origin'), '*');
});

metadata.run();

const proxy = suite<{ svc: Service }>('cors-proxy validation');
proxy.before(async (ctx) => {
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', ALLOW_PRIVATE_NETWORKS: 'false' });
});
proxy.after(async (ctx) => ctx.svc.close());

proxy('a missing url is a 400 {error}, not a redirect', async ({ svc }) => {
  const res = await svc.request('/v1/cors-proxy');
  assert.is(res.status, 400);
  assert.equal(res.json, { error: 'url: is required' });
});

for (const [name, url, message] of badUrls) {
  proxy(`${name} is a 400 {error}`, async ({ svc }) => {
    const res = await svc.request(`/v1/cors-proxy?${new URLSearchParams({ url })}`);
    assert.is(res.status, 400);
    assert.equal(res.json, { error: `url: ${message}` });
  });
}

proxy('a repeated url parameter is a 400 {error}', async ({ svc }) => {
  const res = await svc.request('/v1/cors-proxy?url=https://a.example/x.png&url=https://b.example/y.png');
  assert.is(res.status, 400);
  assert.equal(res.json, { error: 'url: must be given once, not 2 times' });
});

proxy.run();
