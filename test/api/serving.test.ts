import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Route, type Upstream } from '../helpers/upstream.js';
import { cacheOutcomes } from '../helpers/cache-outcomes.js';
import { gate, until } from '../helpers/until.js';

// How answers are sent: compression (gzip, br) of stored answers and static files, ETag and 304
// for component.js, 405 with Allow, nosniff on JSON, Server-Timing on /v1/metadata.

const html = { 'content-type': 'text/html; charset=utf-8' };
const LONG = `<html><head><title>Long</title><meta property="og:description" content="${'A long description. '.repeat(80)}"></head><body></body></html>`;
const SHORT = '<html><head><title>Short</title></head><body></body></html>';
const q = (url: string, extra: Record<string, string> = {}) => `/v1/metadata?${new URLSearchParams({ url, ...extra })}`;

interface Ctx {
  up: Upstream;
  svc: Service;
}
const serving = suite<Ctx>('serving');
serving.before(async (ctx) => {
  ctx.up = await startUpstream({ routes: { '/long': respond(200, LONG, html), '/short': respond(200, SHORT, html), '/slow': slow() } });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' }, { enrichers: [] });
});
serving.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

/** Holds /slow until the second request has joined its fetch. */
const slowHeld = gate();
function slow(): Route {
  return async (_req, res) => {
    await slowHeld.promise;
    res.writeHead(200, html);
    res.end(SHORT);
  };
}

serving('component.js comes gzipped when asked, brotli when accepted, and 304 to its own ETag', async ({ svc }) => {
  const built = readFileSync(new URL('../../dist/element/component.js', import.meta.url));
  const gz = await svc.request('/component.js', { headers: { 'accept-encoding': 'gzip' } });
  assert.is(gz.status, 200);
  assert.is(gz.headers.get('content-encoding'), 'gzip');
  assert.is(gz.headers.get('vary'), 'Accept-Encoding');
  assert.equal(gunzipSync(gz.body), built);
  assert.ok(gz.body.length < built.length / 2, `gzip: ${gz.body.length} of ${built.length} bytes`);
  const br = await svc.request('/component.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.is(br.headers.get('content-encoding'), 'br');
  assert.is(br.text, built.toString());
  const plain = await svc.request('/component.js');
  assert.is(plain.headers.get('content-encoding'), null);
  assert.is(plain.text, built.toString());

  const etag = gz.headers.get('etag')!;
  assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
  assert.is(br.headers.get('etag'), etag, 'one ETag whatever the coding');
  const again = await svc.request('/component.js', { headers: { 'if-none-match': etag, 'accept-encoding': 'gzip' } });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
  assert.is(again.headers.get('etag'), etag);
  const stale = await svc.request('/component.js', { headers: { 'if-none-match': '"something-else"' } });
  assert.is(stale.status, 200);
});

/** The reference page, at both its addresses: sent as it is. */
const UNDER_1_KB = new Set(['/docs', '/docs/']);

serving('openapi.yaml and the /docs files come compressed, with an ETag', async ({ svc }) => {
  const yaml = await svc.request('/openapi.yaml', { headers: { 'accept-encoding': 'br' } });
  assert.is(yaml.headers.get('content-encoding'), 'br');
  assert.is(yaml.text, readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  for (const path of ['/docs', '/docs/', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js']) {
    const res = await svc.request(path, { headers: { 'accept-encoding': 'gzip' } });
    assert.is(res.status, 200, path);
    assert.is(res.headers.get('content-encoding'), UNDER_1_KB.has(path) ? null : 'gzip', path);
    assert.ok(res.headers.get('etag'), path);
    assert.match(res.headers.get('content-security-policy')!, /^default-src 'none'; script-src 'self';/, path);
  }
  const missing = await svc.request('/docs/nothing.js');
  assert.is(missing.status, 404);
  assert.equal(missing.json, { code: 404, message: 'No such endpoint: /docs/nothing.js' });
});

serving('a metadata answer over 1 KB is compressed, on the miss and on the fast-path hit alike; a small one is not', async ({ up, svc }) => {
  const path = q(up.url('/long').href);
  const miss = await svc.request(path, { headers: { 'accept-encoding': 'gzip, br' } });
  const hit = await svc.request(path, { headers: { 'accept-encoding': 'gzip' } });
  const plain = await svc.request(path);
  assert.is(miss.headers.get('content-encoding'), 'br');
  assert.is(hit.headers.get('content-encoding'), 'gzip');
  assert.is(plain.headers.get('content-encoding'), null);
  assert.is(miss.text, plain.text);
  assert.is(hit.text, plain.text);
  assert.ok(plain.body.length > 1024);
  assert.ok(miss.body.length < plain.body.length / 3, `${miss.body.length} of ${plain.body.length}`);
  for (const res of [miss, hit, plain]) assert.is(res.headers.get('vary'), 'Accept-Encoding');

  const small = q(up.url('/short').href);
  const first = await svc.request(small, { headers: { 'accept-encoding': 'gzip, br' } });
  const second = await svc.request(small, { headers: { 'accept-encoding': 'gzip, br' } });
  assert.is(first.headers.get('content-encoding'), null);
  assert.is(second.headers.get('content-encoding'), null);
  assert.is(second.json.title, 'Short');
});

serving('/v1/metadata JSON carries nosniff, on a miss, a hit and an error', async ({ up, svc }) => {
  const path = q(up.url('/short').href, { prefer: 'twitter' });
  for (const p of [path, path, '/v1/metadata?url=ftp://x', q(up.url('/missing').href)]) {
    const res = await svc.request(p);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff', `${p} → ${res.status}`);
  }
});

serving('POST /v1/metadata answers 405 with Allow: GET, HEAD', async ({ svc }) => {
  const res = await svc.request(q('https://example.com/'), { method: 'POST' });
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'GET, HEAD');
  assert.equal(res.json, { code: 405, message: 'POST is not allowed on /v1/metadata; use GET or HEAD.' });
  const proxy = await svc.request('/v1/cors-proxy?url=https://example.com/x.png', { method: 'DELETE' });
  assert.is(proxy.status, 405);
  assert.is(proxy.headers.get('allow'), 'GET, HEAD');
  assert.equal(proxy.json, { error: 'DELETE is not allowed on /v1/cors-proxy; use GET or HEAD.' });
});

serving('a miss and a hit each carry Server-Timing, readable by scripts of other origins', async ({ up, svc }) => {
  const miss = await svc.request(q(up.url('/long?st').href));
  assert.match(miss.headers.get('server-timing')!, /^cache;desc=miss, fetch;dur=\d+(\.\d)?, scan;dur=\d+(\.\d)?, enrich;dur=\d+(\.\d)?$/);
  const hit = await svc.request(q(up.url('/long?st').href));
  assert.is(hit.headers.get('server-timing'), 'cache;desc=hit');
  // The same page under another preference: the extraction is cached, the answer is not yet.
  const other = await svc.request(q(up.url('/long?st').href, { prefer: 'twitter' }));
  assert.is(other.headers.get('server-timing'), 'cache;desc=hit');
  assert.match(miss.headers.get('access-control-expose-headers')!, /\bServer-Timing\b/);
  assert.match(hit.headers.get('access-control-expose-headers')!, /\bServer-Timing\b/);
});

serving('a request that waits for the same page fetched for another says shared', async ({ up, svc }) => {
  const shared = await cacheOutcomes(svc.baseUrl, 'shared');
  const both = Promise.all([svc.request(q(up.url('/slow').href)), svc.request(q(up.url('/slow').href, { prefer: 'twitter' }))]);
  await until(async () => (await cacheOutcomes(svc.baseUrl, 'shared')) === shared + 1, 'the second request to join the fetch');
  slowHeld.open();
  const [a, b] = await both;
  const timings = [a.headers.get('server-timing')!, b.headers.get('server-timing')!].map((t) => t.split(',')[0]).sort();
  assert.equal(timings, ['cache;desc=miss', 'cache;desc=shared']);
  assert.is(up.hits('/slow'), 1);
});

serving('a failed fetch tells its timing too', async ({ up, svc }) => {
  const res = await svc.request(q(up.url('/missing-too').href));
  assert.is(res.status, 422);
  assert.match(res.headers.get('server-timing')!, /^cache;desc=miss, fetch;dur=[\d.]+$/);
  const remembered = await svc.request(q(up.url('/missing-too').href));
  assert.is(remembered.headers.get('server-timing'), 'cache;desc=hit');
});
serving.run();
