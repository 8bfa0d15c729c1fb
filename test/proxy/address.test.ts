// The proxy shares safeFetch's address guard: literal tricks are refused as invalid
// input (400, by the route's parseTarget); a name resolving to a blocked address, or a redirect into
// one, is a 502 with the very message of any other upstream failure. The guard is on here; the
// redirecting fixture at 127.0.0.1 is reached by name and trusted through the isPublicAddress
// test seam; the "private" fixture listens on 127.0.0.2 and must never be dialled.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicAddress } from '../../src/fetch/address.js';
import { targetProblem } from '../../src/fetch/target.js';
import { redirect, respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { scriptedLookup, lookupResolver } from '../fetch/harness.js';
import { png } from './images.js';
import { startProxyService, type ProxyService } from './harness.js';

const test = suite('image proxy address guard');
// A blocked address reads like any site that cannot be reached: the API is no port scanner.
const UPSTREAM_FAILURE = { error: 'The image could not be fetched. The site could not be reached.', reason: 'unreachable' };

let inner: Upstream;
let hop: Upstream;
let proxy: ProxyService;
test.before(async () => {
  inner = await startUpstream({ host: '127.0.0.2', routes: { '*': respond(200, png(), { 'content-type': 'image/png' }) } });
  const p = inner.port;
  hop = await startUpstream({
    routes: {
      '/ok.png': respond(200, png(), { 'content-type': 'image/png' }),
      '/to-literal': redirect(302, `http://127.0.0.2:${p}/x.png`),
      '/to-mapped': redirect(302, `http://[::ffff:7f00:2]:${p}/x.png`),
      '/to-octal': redirect(302, `http://0177.0.0.2:${p}/x.png`),
      '/to-name': redirect(302, `http://intranet.test:${p}/x.png`),
      '/to-localhost': redirect(302, `http://localhost.:${p}/x.png`),
    },
  });
  proxy = await startProxyService(
    { ALLOW_PRIVATE_NETWORKS: 'false' },
    {
      isPublicAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
      resolver: lookupResolver(
        scriptedLookup((name) => {
          if (name === 'images.test') return ['127.0.0.1'];
          if (name === 'intranet.test' || name === 'rebind.test' || name === 'localhost.') return ['127.0.0.2'];
          return null;
        }),
      ),
    },
  );
});
test.after(async () => {
  await proxy.close();
  await hop.close();
  await inner.close();
});

const viaName = (path: string) => proxy.path(hop.url(path, 'images.test'));

test('control: the trusted fixture, reached by name, is proxied', async () => {
  const res = await proxy.service.request(viaName('/ok.png'));
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
});

for (const host of [
  '127.1',
  '0177.0.0.1',
  '0x7f.1',
  '2130706433',
  '0',
  '[::]',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[64:ff9b::a00:1]',
  '[2002:7f00:1::]',
  'localhost',
  'localhost.',
]) {
  test(`a literal or local host ${host} is invalid input (400), nothing dialled`, async () => {
    // Proven refused by the URL check first, so a bug can never send a packet off this machine.
    assert.ok(targetProblem(new URL(`http://${host}:${inner.port}/x.png`), { allowPrivateNetworks: false }));
    const res = await proxy.service.request(proxy.path(`http://${host}:${inner.port}/x.png`));
    assert.is(res.status, 400);
    assert.type(res.json.error, 'string');
    assert.is(inner.connections, 0);
  });
}

test('credentials in the URL are invalid input (400)', async () => {
  const res = await proxy.service.request(proxy.path(`http://user:pw@images.test:${hop.port}/ok.png`));
  assert.is(res.status, 400);
});

test('a name that resolves to a blocked address is a 502 with the common upstream-failure message', async () => {
  const res = await proxy.service.request(proxy.path(`http://intranet.test:${inner.port}/x.png`));
  assert.is(res.status, 502);
  assert.equal(res.json, UPSTREAM_FAILURE);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is(inner.connections, 0);
});

for (const path of ['/to-literal', '/to-mapped', '/to-octal', '/to-name', '/to-localhost']) {
  test(`a redirect into a private address (${path.slice(4)}) is a 502 with the common message`, async () => {
    const res = await proxy.service.request(viaName(path));
    assert.is(res.status, 502);
    assert.equal(res.json, UPSTREAM_FAILURE);
    assert.is(hop.hits(path), 1);
    assert.is(inner.connections, 0);
  });
}

// As on the metadata endpoint (fetch/classify-error.ts): an unknown name and a refused public port
// are named, since the guard refuses a blocked address before dialling, so neither can come from
// one; a blocked address reads `unreachable`, like a reset.
test('an unknown name and a refused port are named; a blocked address reads unreachable', async () => {
  const closed = await startUpstream({ routes: {} });
  await closed.close();
  const unknown = await proxy.service.request(proxy.path(`http://nowhere.test:${hop.port}/x.png`));
  const refused = await proxy.service.request(proxy.path(`http://images.test:${closed.port}/x.png`));
  const blocked = await proxy.service.request(proxy.path(`http://intranet.test:${inner.port}/x.png`));
  assert.equal(
    [unknown, refused, blocked].map((res) => [res.status, res.json]),
    [
      [502, { error: 'The image could not be fetched. The name nowhere.test does not resolve.', reason: 'name_not_resolved' }],
      [502, { error: 'The image could not be fetched. The connection was refused.', reason: 'connection_refused' }],
      [502, UPSTREAM_FAILURE],
    ],
  );
});

test.run();
