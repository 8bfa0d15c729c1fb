import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isAuthority } from '../../src/api/showcase-location.js';
import { assertContract } from '../helpers/contract.js';
import { startService, type Service } from '../helpers/service.js';

// docs/SPEC.md: a metadata request without `url` is a 302 whose Location is "an absolute URI to
// this same endpoint" with the showcase page as `url`. Its origin is PUBLIC_BASE_URL when set,
// else the request's own scheme and Host; a Host that is not a well-formed host and port gives
// way to the address the connection arrived at. Every 302 is no-store, without a body, and keeps
// the request's `prefer`.

const SHOWCASE = `url=${encodeURIComponent('https://github.com/')}`;

interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** Sends `head` as it is (Host headers node:http would not send), then reads the whole answer. */
function rawRequest(port: number, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(`${head}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [headText = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const headers = new Headers();
      for (const line of lines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
      const status = Number(statusLine.split(' ')[1]);
      assertContract({ method: 'GET', path: '/v1/metadata', status, headers, body: Buffer.from(body, 'latin1') });
      resolve({ status, headers, body });
    });
  });
}

/** The 302 every case expects: its Location, no-store, and no body. */
function assertShowcaseRedirect(res: { status: number; headers: Headers }, location: string): void {
  assert.is(res.status, 302);
  assert.is(res.headers.get('location'), location);
  assert.is(res.headers.get('cache-control'), 'no-store');
}

const test = suite<{ svc: Service; port: number; local: string }>('the 302 of a request without url');
test.before(async (ctx) => {
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0' });
  ctx.port = Number(new URL(ctx.svc.baseUrl).port);
  ctx.local = `http://127.0.0.1:${ctx.port}/v1/metadata?${SHOWCASE}`;
});
test.after(async (ctx) => ctx.svc.close());

test('without PUBLIC_BASE_URL the Location is absolute, on the scheme and Host the request used', async ({ svc, local }) => {
  const res = await svc.request('/v1/metadata');
  assertShowcaseRedirect(res, local);
  assert.is(res.text, '');
  assert.is(res.headers.get('content-type'), null);
});

const wellFormedHosts: Array<[string, string]> = [
  ['a name', 'linkpeek.example'],
  ['a name with a port', 'linkpeek.example:8443'],
  ['a name with a trailing dot', 'linkpeek.example.'],
  ['an IPv4 address with a port', '192.0.2.7:3000'],
  ['a bracketed IPv6 address with a port', '[2001:db8::7]:3000'],
];
for (const [name, host] of wellFormedHosts) {
  test(`a Host of ${name} is the Location's authority`, async ({ svc }) => {
    const res = await svc.request('/v1/metadata', { headers: { host } });
    assertShowcaseRedirect(res, `http://${host}/v1/metadata?${SHOWCASE}`);
  });
}

test('a Host in capitals is written in lower case', async ({ svc }) => {
  assertShowcaseRedirect(await svc.request('/v1/metadata', { headers: { host: 'LinkPeek.Example' } }), `http://linkpeek.example/v1/metadata?${SHOWCASE}`);
});

// Each of these falls back to the address the connection arrived at (127.0.0.1 and the port).
const malformedHosts: Array<[string, string]> = [
  ['a space', 'evil example.com'],
  ['a port over 65535', 'linkpeek.example:70000'],
  ['port 0', 'linkpeek.example:0'],
  ['an empty port', 'linkpeek.example:'],
  ['two ports', 'linkpeek.example:80:80'],
  ['credentials (@)', 'user@evil.example'],
  ['a path', 'evil.example/phish'],
  ['a query', 'evil.example?x=1'],
  ['an unclosed IPv6 bracket', '[2001:db8::7'],
  ['an IPv6 address without brackets', '2001:db8::7'],
  ['a name ending in a number', 'evil.123'],
  ['an IPv4 shorthand the URL parser rewrites', '127.1'],
  ['a label over 63 characters', `${'a'.repeat(64)}.example`],
  ['an underscore', 'evil_host.example'],
  ['a percent-encoded name', 'evil%2Eexample'],
  ['nothing', ''],
];
for (const [name, host] of malformedHosts) {
  test(`a Host with ${name} gives the listening address`, async ({ port, local }) => {
    assertShowcaseRedirect(await rawRequest(port, `GET /v1/metadata HTTP/1.1\r\nHost: ${host}`), local);
  });
}

test('an HTTP/1.0 request without Host gives the listening address', async ({ port, local }) => {
  assertShowcaseRedirect(await rawRequest(port, 'GET /v1/metadata HTTP/1.0'), local);
});

test("the request's prefer is kept; a repeated one is not", async ({ svc }) => {
  const base = `${svc.baseUrl}/v1/metadata?${SHOWCASE}`;
  assertShowcaseRedirect(await svc.request('/v1/metadata?prefer=twitter'), `${base}&prefer=twitter`);
  assertShowcaseRedirect(await svc.request('/v1/metadata?prefer=og&utm_source=x'), `${base}&prefer=og`);
  // Whatever it is: the followed request answers it (a 400 naming the allowed values).
  assertShowcaseRedirect(await svc.request('/v1/metadata?prefer=a%26b'), `${base}&prefer=a%26b`);
  assertShowcaseRedirect(await svc.request('/v1/metadata?prefer=og&prefer=twitter'), base);
});

test('X-Forwarded-Proto and X-Forwarded-Host are ignored without TRUST_PROXY', async ({ svc }) => {
  const res = await svc.request('/v1/metadata', { headers: { host: 'linkpeek.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } });
  assertShowcaseRedirect(res, `http://linkpeek.example/v1/metadata?${SHOWCASE}`);
});

test.run();

const proxied = suite('the 302 behind a load balancer (TRUST_PROXY)');

proxied('the scheme is the last X-Forwarded-Proto entry; the host is the Host header, never X-Forwarded-Host', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0', TRUST_PROXY: 'true' });
  try {
    const https = await svc.request('/v1/metadata', {
      headers: { host: 'linkpeek.example', 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'evil.example' },
    });
    assertShowcaseRedirect(https, `https://linkpeek.example/v1/metadata?${SHOWCASE}`);
    const odd = await svc.request('/v1/metadata', { headers: { host: 'linkpeek.example', 'x-forwarded-proto': 'javascript' } });
    assertShowcaseRedirect(odd, `http://linkpeek.example/v1/metadata?${SHOWCASE}`);
  } finally {
    await svc.close();
  }
});

proxied.run();

const configured = suite('the 302 with PUBLIC_BASE_URL');

configured('PUBLIC_BASE_URL and SHOWCASE_URL decide it, whatever the Host', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0', PUBLIC_BASE_URL: 'https://lp.example/preview', SHOWCASE_URL: 'https://www.bbc.com/news' });
  try {
    const location = 'https://lp.example/preview/v1/metadata?url=https%3A%2F%2Fwww.bbc.com%2Fnews';
    assertShowcaseRedirect(await svc.request('/v1/metadata'), location);
    assertShowcaseRedirect(await svc.request('/v1/metadata?prefer=twitter', { headers: { host: 'evil.example' } }), `${location}&prefer=twitter`);
  } finally {
    await svc.close();
  }
});

configured.run();

const syntax = suite('which Host headers are a host and port');

syntax('names, addresses and ports in range are; anything the URL parser would rewrite is not', () => {
  for (const ok of ['a.example', 'a-b.example:1', 'x:65535', '10.0.0.1', '[::1]', '[::1]:80', 'localhost']) assert.ok(isAuthority(ok), ok);
  for (const bad of ['-a.example', 'a-.example', 'x:65536', 'x:08', '[::1]x', '[::0001]', '0x7f.1', 'a..example', '.', 'é.example']) {
    assert.not.ok(isAuthority(bad), bad);
  }
});

syntax.run();
