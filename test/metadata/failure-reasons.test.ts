import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isPublicAddress } from '../../src/fetch/address.js';
import { failures } from '../../src/failure-reasons.js';
import { classifyNetworkError } from '../../src/fetch/classify-error.js';
import { scriptedLookup, lookupResolver } from '../fetch/harness.js';
import { startService, type Service } from '../helpers/service.js';
import { redirect, respond, stall, startUpstream, type Upstream } from '../helpers/upstream.js';

// A 422 names what failed: one reason of openapi.yaml's enum and a message a person can act on.
// The real app with the address guard on: `site.test` resolves to the fixture on 127.0.0.1 (the
// one loopback address treated as public), and so does `consent.youtube.com` (where /to-consent
// redirects); `inside.test` to 127.0.0.2 (private), every other name fails with ENOTFOUND like an
// unknown name does.

const html = { 'content-type': 'text/html; charset=utf-8' };
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;
const body = (reason: string, message: string) => ({ code: 422, message, reason });

interface Ctx {
  up: Upstream;
  tls: Upstream;
  reset: net.Server;
  closedPort: number;
  svc: Service;
}
const reasons = suite<Ctx>('422 reasons of /v1/metadata');

reasons.before(async (ctx) => {
  const hops: Record<string, ReturnType<typeof redirect>> = {};
  for (let i = 0; i < 7; i++) hops[`/hop${i}`] = redirect(302, `/hop${i + 1}`);
  const challenge = { ...html, server: 'cloudflare', 'cf-mitigated': 'challenge' };
  ctx.up = await startUpstream({
    routes: {
      '/gone': respond(404, 'nope', html),
      '/stall': stall(),
      '/challenge': respond(403, '<title>Just a moment...</title>', challenge),
      '/to-consent': (req, res) => redirect(302, ctx.up.url('/m?continue=x', 'consent.youtube.com').href)(req, res),
      '/m': respond(200, '<title>Before you continue to YouTube</title>', html),
      ...hops,
    },
  });
  ctx.tls = await startUpstream({ protocol: 'https', routes: { '/': respond(200, '<title>x</title>', html) } });
  // A site whose connection is cut as soon as it is accepted.
  ctx.reset = net.createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => ctx.reset.listen(0, '127.0.0.1', resolve));
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  ctx.closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const lookup = scriptedLookup((name) =>
    name === 'site.test' || name === 'consent.youtube.com' ? ['127.0.0.1'] : name === 'inside.test' ? ['127.0.0.2'] : null,
  );
  ctx.svc = await startService(
    { RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', ALLOW_PRIVATE_NETWORKS: 'false', FETCH_TIMEOUT_MS: '1000', MAX_REDIRECTS: '5' },
    { fetch: { resolver: lookupResolver(lookup), isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) } },
  );
});
reasons.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
  await ctx.tls.close();
  await new Promise<void>((resolve) => ctx.reset.close(() => resolve()));
});

const site = (up: Upstream, path: string) => up.url(path, 'site.test').href;

reasons('each failure kind has its own reason and message', async (ctx) => {
  const cases: Array<[string, ReturnType<typeof body>]> = [
    [site(ctx.up, '/gone'), body('http_status', 'The site answered 404.')],
    [site(ctx.up, '/stall'), body('timeout', 'The site did not answer within 1 s.')],
    [`http://example.invalid:${ctx.up.port}/`, body('name_not_resolved', 'The name example.invalid does not resolve.')],
    [site(ctx.up, '/hop0'), body('too_many_redirects', 'More than 5 redirects.')],
    [site(ctx.tls, '/'), body('tls_certificate', "The site's TLS certificate is not valid.")],
    [`http://site.test:${ctx.closedPort}/`, body('connection_refused', 'The connection was refused.')],
    [`http://site.test:${(ctx.reset.address() as AddressInfo).port}/`, body('unreachable', 'The site could not be reached.')],
    [site(ctx.up, '/challenge'), body('bot_check', 'The site showed a bot check (Cloudflare) instead of the page.')],
    [site(ctx.up, '/to-consent'), body('consent_wall', 'The site sent LinkPeek to a consent page (consent.youtube.com) instead of the page.')],
  ];
  for (const [url, expected] of cases) {
    const res = await ctx.svc.request(q(url));
    assert.is(res.status, 422, url);
    assert.equal(res.json, expected, url);
    assert.is(res.headers.get('cache-control'), 'no-store');
  }
  assert.is(new Set(cases.map(([, b]) => b.reason)).size, cases.length, 'distinct reasons');
  assert.is(new Set(cases.map(([, b]) => b.message)).size, cases.length, 'distinct messages');
});

reasons('a name that resolves to a blocked address reads exactly like a site that resets the connection', async (ctx) => {
  const blocked = await ctx.svc.request(q(`http://inside.test:${ctx.up.port}/`));
  const reset = await ctx.svc.request(q(`http://site.test:${(ctx.reset.address() as AddressInfo).port}/other`));
  assert.is(blocked.status, 422);
  assert.equal(blocked.json, reset.json);
  assert.equal(blocked.json, body('unreachable', 'The site could not be reached.'));
  assert.is(ctx.up.requests.filter((r) => r.path === '/').length, 0, 'the private address was never fetched');
});

reasons('a remembered failure is answered with the same reason and message', async (ctx) => {
  const first = await ctx.svc.request(q(site(ctx.up, '/gone?again')));
  const hits = ctx.up.hits('/gone');
  const second = await ctx.svc.request(q(site(ctx.up, '/gone?again')));
  assert.is(ctx.up.hits('/gone'), hits, 'served from the failure cache');
  assert.equal(second.json, first.json);
  assert.equal(second.json, body('http_status', 'The site answered 404.'));
});
reasons.run();

const chain = suite('dns failures anywhere in the cause chain');
for (const code of ['ENOTFOUND', 'ENODATA', 'ESERVFAIL', 'ETIMEOUT', 'EREFUSED']) {
  chain(`${code}, wrapped in a cause and in Happy Eyeballs' AggregateError, is name_not_resolved`, () => {
    const dns = Object.assign(new Error(`queryA ${code} shop.example`), { code, hostname: 'shop.example' });
    const wrapped = new Error('connect failed', { cause: new AggregateError([new Error('other'), dns]) });
    assert.equal(classifyNetworkError(wrapped, 'fallback.example'), failures.nameNotResolved('shop.example'));
    // Without a hostname of its own, the error names the host being fetched.
    const bare = Object.assign(new Error(code), { code });
    assert.equal(classifyNetworkError(bare, 'fallback.example'), failures.nameNotResolved('fallback.example'));
  });
}
chain('an error without a known code is unreachable', () => {
  assert.equal(classifyNetworkError(new Error('socket hang up'), 'x.example'), failures.unreachable());
});
chain.run();

const contract = suite('the reason enum of openapi.yaml');
contract('every reason the service can give is in the enum, and every value of the enum can be given', () => {
  const doc = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  const resolve = (ref: string) =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: any, k: string) => o[k], doc);
  const apiError = resolve(doc.paths['/v1/metadata'].get.responses['422'].content['application/json'].schema.$ref);
  const proxyError = resolve(doc.paths['/v1/cors-proxy'].get.responses['502'].content['application/json'].schema.$ref);
  // The 422 and the proxy's 502 speak the same reasons.
  assert.is(apiError.properties.reason.$ref, proxyError.properties.reason.$ref);
  const given = Object.values(failures).map((make) => (make as (arg: never) => { reason: string })(1 as never).reason);
  // `reason` is open (a known value or any string a later version adds): the known values are FailureReason's.
  const open = resolve(apiError.properties.reason.$ref);
  assert.equal(open.anyOf[1], { type: 'string' });
  assert.equal([...given].sort(), [...resolve(open.anyOf[0].$ref).enum].sort());
});
contract.run();
