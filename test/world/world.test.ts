import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { startWorldDns, type WorldDns } from './dns-server.js';
import { startHost, type HostProtocol, type WorldHost } from './hosts.js';
import { imageFor } from './images.js';
import { createTestCa, type TestCa } from './tls.js';

// The simulated internet's pieces together, as the benchmark world uses them: a page on one host,
// its og:image and icon on another, each under its own name from the world's nameserver, over
// HTTPS with certificates of a CA the service trusts only through UPSTREAM_CA_FILE. Port 0 and
// the port in the URL (tests never bind 443).

const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;

interface Ctx {
  ca: TestCa;
  dns: WorldDns;
  hosts: WorldHost[];
  svc: Service;
  site(protocol: HostProtocol, imageProtocol: HostProtocol): Promise<{ page: WorldHost; images: WorldHost }>;
}
const test = suite<Ctx>('a page and its images on their own named hosts, over a private CA');

test.before(async (ctx) => {
  ctx.ca = await createTestCa();
});

test.after(async (ctx) => {
  await ctx.ca.remove();
});

test.before.each(async (ctx) => {
  ctx.dns = await startWorldDns();
  ctx.hosts = [];
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', DNS_SERVERS: ctx.dns.server, UPSTREAM_CA_FILE: ctx.ca.caFile });
  ctx.site = async (protocol, imageProtocol) => {
    const tls = await ctx.ca.issue(['news.world.test', 'img.world.test']);
    const images = await startHost({
      name: 'img.world.test',
      address: '127.0.0.1',
      latencyMs: 5,
      tls,
      listeners: [{ port: 0, protocol: imageProtocol }],
      handle: (req, res) => {
        const image = imageFor(new URL(req.url ?? '/', 'http://x').pathname);
        res.writeHead(200, { 'content-type': image.contentType });
        res.end(image.bytes);
      },
    });
    const page = await startHost({
      name: 'news.world.test',
      address: '127.0.0.1',
      latencyMs: 5,
      tls,
      listeners: [{ port: 0, protocol }],
      handle: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<title>World news</title><meta property="og:image" content="${images.url('/story.png').href}">` +
            `<link rel="icon" href="${images.url('/icon.ico').href}"><body>`,
        );
      },
    });
    ctx.hosts.push(images, page);
    ctx.dns.set('news.world.test', { A: ['127.0.0.1'] });
    ctx.dns.set('img.world.test', { A: ['127.0.0.1'] });
    return { page, images };
  };
});

test.after.each(async (ctx) => {
  await ctx.svc.close();
  for (const host of ctx.hosts) await host.close();
  await ctx.dns.close();
});

for (const [protocol, imageProtocol] of [
  ['h2', 'h2'],
  ['https', 'http'],
  ['http', 'https'],
] as const) {
  test(`page over ${protocol}, images over ${imageProtocol}: the image and the icon are probed on their host`, async ({ svc, dns, site }) => {
    const { page, images } = await site(protocol, imageProtocol);
    const res = await svc.request(q(page.url('/story').href));
    assert.is(res.status, 200);
    assert.is(res.json.title, 'World news');
    assert.equal(
      { url: res.json.image.url, type: res.json.image.type, width: res.json.image.width, height: res.json.image.height },
      { url: images.url('/story.png').href, type: 'image/png', width: 1200, height: 630 },
    );
    assert.equal({ url: res.json.favicon.url, type: res.json.favicon.type }, { url: images.url('/icon.ico').href, type: 'image/x-icon' });
    assert.is(images.requests, 2);
    assert.is(page.requests, 1);
    assert.ok(dns.queries('img.world.test', 'A') >= 1, 'the image host was found through the nameserver');
  });
}

test('a host with a certificate from another CA is refused (the test CA is trusted, not everything)', async ({ svc, dns }) => {
  const other = await createTestCa();
  try {
    const host = await startHost({
      name: 'rogue.world.test',
      address: '127.0.0.1',
      latencyMs: 0,
      tls: await other.issue(['rogue.world.test']),
      listeners: [{ port: 0, protocol: 'h2' }],
      handle: (_req, res) => void res.end('<title>Rogue</title>'),
    });
    dns.set('rogue.world.test', { A: ['127.0.0.1'] });
    const res = await svc.request(q(host.url('/').href));
    assert.equal([res.status, res.json], [422, { code: 422, message: "The site's TLS certificate is not valid.", reason: 'tls_certificate' }]);
    await host.close();
  } finally {
    await other.remove();
  }
});

test('a plain HTTP host answers once its held connection is handed over (the paused socket is resumed)', async () => {
  const host = await startHost({
    name: 'far.world.test',
    address: '127.0.0.1',
    latencyMs: 0,
    listeners: [{ port: 0, protocol: 'http' }],
    handle: (_req, res) => void res.end('ok'),
  });
  const res = await fetch(`http://127.0.0.1:${host.ports[0]}/`);
  assert.is(await res.text(), 'ok');
  assert.is(host.connections, 1);
  assert.is(host.requests, 1);
  await host.close();
});

test.run();
