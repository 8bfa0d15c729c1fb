import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLinkPeek, PreviewError, type LinkPeek } from '../../src/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { configFromOptions, envName } from '../../src/engine/options.js';
import { LOCAL_DNS_SERVERS } from '../helpers/local-dns.js';
import { startService, type Service } from '../helpers/service.js';
import { redirect, respond, stall, startUpstream, type Upstream } from '../helpers/upstream.js';

// createLinkPeek in-process, against the API it mirrors: the same page gives the same object,
// the same bad or failing URL the same reason and message, through the real fetcher on loopback.

const html = { 'content-type': 'text/html; charset=utf-8' };
const PAGE =
  '<html lang="en"><head><title>Tide pools</title><meta property="og:image" content="/card.png"><meta name="twitter:title" content="Tw"><link rel="icon" href="/i.png"></head><body>';
const q = (url: string, prefer = 'og') => `/v1/metadata?${new URLSearchParams({ url, prefer })}`;

interface Ctx {
  up: Upstream;
  svc: Service;
  lp: LinkPeek;
  closedUrl: string;
}
const api = suite<Ctx>('the library answers as the API does');
api.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/page': respond(200, PAGE, html),
      '/gone': respond(404, 'nope', html),
      '/empty': respond(200, '', html),
      '/loop': redirect(302, '/loop'),
      '/challenge': respond(403, '<title>Just a moment...</title>', { ...html, 'cf-mitigated': 'challenge' }),
      // Never answers: the fetch ends at its deadline (FETCH_TIMEOUT_MS), which is what is tested.
      '/slow': stall(),
    },
  });
  const env = { RATE_LIMIT_MAX: '0', FETCH_TIMEOUT_MS: '600', ENRICH_BUDGET_MS: '300' };
  ctx.svc = await startService(env);
  ctx.lp = createLinkPeek({ allowPrivateNetworks: true, dnsServers: [LOCAL_DNS_SERVERS], fetchTimeoutMs: 600, enrichBudgetMs: 300 });
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  ctx.closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
api.after(async (ctx) => {
  await Promise.all([ctx.svc.close(), ctx.lp.close(), ctx.up.close()]);
});

api('a page gives the exact object GET /v1/metadata answers, for each preference', async ({ up, svc, lp }) => {
  for (const prefer of ['og', 'twitter'] as const) {
    const res = await svc.request(q(up.url('/page').href, prefer));
    assert.is(res.status, 200);
    assert.equal(await lp.metadata(up.url('/page').href, { prefer }), res.json);
  }
  assert.is((await lp.metadata(up.url('/page'), { prefer: 'twitter' })).title, 'Tw', 'a URL object is taken too');
});

api("each failing page rejects with the reason and message of the API's 422", async ({ up, svc, lp, closedUrl }) => {
  const urls = ['/gone', '/empty', '/loop', '/challenge', '/slow'].map((p) => up.url(p).href);
  urls.push(closedUrl, 'http://nowhere.invalid/');
  const reasons: string[] = [];
  for (const url of urls) {
    const res = await svc.request(q(url));
    assert.is(res.status, 422, url);
    const err = await lp.metadata(url).catch((e: unknown) => e);
    assert.instance(err, PreviewError, url);
    const { reason, message, status } = err as PreviewError;
    assert.equal({ reason, message, status }, { reason: res.json.reason, message: res.json.message, status: 422 }, url);
    reasons.push(reason);
  }
  assert.equal(reasons, ['http_status', 'empty_page', 'redirect_loop', 'bot_check', 'timeout', 'connection_refused', 'name_not_resolved']);
});

api('a URL the API refuses with 400 is refused with its message, never fetched', async ({ svc, lp, up }) => {
  const before = up.connections;
  for (const url of [
    'ftp://example.com/',
    'javascript:alert(1)',
    'not a url',
    'http://u:p@example.com/',
    'http://example.com:25/',
    `http://a.example/${'x'.repeat(5000)}`,
    'http://a.example/\r\nx',
  ]) {
    const res = await svc.request(q(url));
    assert.is(res.status, 400, url);
    const err = await lp.metadata(url).catch((e: unknown) => e);
    assert.instance(err, PreviewError, url);
    const { reason, message, status, problems } = err as PreviewError;
    // The message names the argument; each problem's message is the API's.
    assert.equal({ reason, message, status }, { reason: 'invalid_input', message: `url: ${res.json.errors[0].message}`, status: 400 });
    assert.equal(problems, [{ path: ['url'], message: res.json.errors[0].message }]);
  }
  assert.is(up.connections, before);
});

api('bad arguments of another kind are a PreviewError naming the argument', async ({ lp, up }) => {
  const problemOf = async (run: () => Promise<unknown>) => {
    const err = await run().catch((e: unknown) => e);
    assert.instance(err, PreviewError);
    return (err as PreviewError).problems.map((p) => `${p.path.join('.')}: ${p.message}`);
  };
  assert.equal(await problemOf(() => lp.metadata(42 as unknown as string)), ['url: must be a string or a URL']);
  assert.equal(await problemOf(() => lp.metadata(up.url('/page').href, { prefer: 'facebook' as 'og' })), [
    'prefer: must be equal to one of the allowed values: og, twitter',
  ]);
});

api('an aborted signal rejects with its reason at once; the fetch goes on and is cached', async ({ lp, up }) => {
  const url = up.url('/slow').href + '?abort';
  const controller = new AbortController();
  const pending = lp.metadata(url, { signal: controller.signal });
  controller.abort(new Error('caller gave up'));
  const err = await pending.catch((e: unknown) => e);
  assert.is((err as Error).message, 'caller gave up');
  const already = await lp.metadata(url, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
  assert.is((already as Error).name, 'AbortError');
});

test("private addresses are refused unless allowPrivateNetworks, with the API's words", async () => {
  const lp = createLinkPeek({ dnsServers: [LOCAL_DNS_SERVERS] });
  try {
    const err = (await lp.metadata('http://127.0.0.1/').catch((e: unknown) => e)) as PreviewError;
    assert.is(err.reason, 'invalid_input');
    assert.is(
      err.message,
      'url: must not point to a private, loopback or reserved address; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true',
    );
  } finally {
    await lp.close();
  }
});

test("options are the settings: same names in camelCase, same defaults (but scanning on the caller's thread), same checks", () => {
  const defaults: Config = loadConfig({});
  // The one default of its own: no scan threads unless asked for (scanWorkers 0).
  assert.equal(configFromOptions({}), { ...defaults, scanWorkers: 0 });
  assert.is(configFromOptions({ scanWorkers: 2 }).scanWorkers, 2);
  // Every option is read as its environment variable: set one, get what the variable gives.
  assert.equal(
    configFromOptions({ fetchTimeoutMs: 2000, probeImages: false, dnsServers: ['127.0.0.1:5300', '[::1]:53'], safetyAdultList: '/x' }),
    loadConfig({ SCAN_WORKERS: '0', FETCH_TIMEOUT_MS: '2000', PROBE_IMAGES: 'false', DNS_SERVERS: '127.0.0.1:5300,[::1]:53', SAFETY_ADULT_LIST: '/x' }),
  );
  for (const name of Object.keys(defaults) as Array<keyof Config>) assert.match(envName(name), /^[A-Z][A-Z0-9_]+$/);
  const refused = (options: object) => {
    try {
      createLinkPeek(options);
    } catch (err) {
      return (err as Error).message;
    }
    return 'accepted';
  };
  assert.is(refused({ fetchTimeoutMs: 0 }), 'Invalid setting fetchTimeoutMs: must be at least 1');
  assert.is(refused({ maxPageBytes: 1.5 }), 'Invalid setting maxPageBytes: "1.5" is not a whole number');
  assert.is(refused({ dnsTimeoutMs: 9000 }), 'Invalid setting dnsTimeoutMs: must be below fetchTimeoutMs (8000)');
  assert.is(
    refused({ dnsServers: ['resolver.example'] }),
    'Invalid setting dnsServers: "resolver.example" is not an IP address with an optional port (IPv6 in brackets when a port follows)',
  );
  assert.is(refused({ probeImages: 'no' }), 'Invalid setting probeImages: must be a boolean, not "no"');
  assert.is(refused({ port: 80 }), 'Invalid setting port: is not an option of the engine (README "Settings")');
  assert.is(refused({ fetchTimeout: 80 }), 'Invalid setting fetchTimeout: is not an option of the engine (README "Settings")');
});

test.run();
api.run();
