// One test per address trick. Every URL here points at a live fixture server on
// 127.0.0.1 under some disguise; each must fail as FetchFailed with the public message shared by
// all failures, and the server must see no request. Literal addresses that are not loopback
// (NAT64, 6to4, ::) are first proven refused by the URL check, so a bug can never send a packet
// off this machine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { promisify } from 'node:util';
import { FetchFailed } from '../../src/errors.js';
import { BlockedAddressError, guardLookup } from '../../src/fetch/address.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { targetProblem } from '../../src/fetch/target.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { loopbackLookup, readAll, rejection, scriptedLookup, testConfig, lookupResolver } from './harness.js';

const test = suite('safeFetch address attacks');
const guarded = testConfig({ ALLOW_PRIVATE_NETWORKS: 'false' });
const UNREACHABLE = 'The site could not be reached.';

let up: Upstream;
test.before(async () => {
  up = await startUpstream({ routes: { '*': respond(200, 'secret') } });
});
test.after(async () => {
  await up.close();
});

/** Fetches `href` with the guard on; asserts the refusal and that nothing reached the upstream. */
async function assertRefused(href: string, reason: RegExp, lookup = loopbackLookup([])): Promise<FetchFailed> {
  const before = up.requests.length;
  const connectionsBefore = up.connections;
  const { safeFetch, close } = createSafeFetch(guarded, { resolver: lookupResolver(lookup) });
  try {
    const err = await rejection(safeFetch(new URL(href), { maxBytes: 1024 }));
    assert.instance(err, FetchFailed);
    // A blocked address is told like any unreachable site; an unknown name says so.
    assert.is(err.message, (err as FetchFailed).failure.reason === 'name_not_resolved' ? (err as FetchFailed).failure.message : UNREACHABLE);
    assert.match((err as FetchFailed).reason, reason);
    assert.is(up.requests.length, before, 'the upstream saw no request');
    assert.is(up.connections, connectionsBefore, 'nothing even connected to the upstream');
    return err as FetchFailed;
  } finally {
    await close();
  }
}

/** For literals that are not loopback: the URL check must refuse them before safeFetch is tried. */
function assertUrlCheckRefuses(href: string): void {
  const problem = targetProblem(new URL(href), { allowPrivateNetworks: false });
  assert.ok(problem, `${href} passed the URL check`);
}

const loopbackSpellings: Array<[string, string]> = [
  ['127.1 (short form)', '127.1'],
  ['0177.0.0.1 (octal)', '0177.0.0.1'],
  ['0x7f.1 (hex)', '0x7f.1'],
  ['2130706433 (one decimal number)', '2130706433'],
  ['[::1] (IPv6 loopback)', '[::1]'],
  ['[::ffff:127.0.0.1] (IPv4-mapped, dotted)', '[::ffff:127.0.0.1]'],
  ['[::ffff:7f00:1] (IPv4-mapped, hex)', '[::ffff:7f00:1]'],
  ['[::127.0.0.1] (IPv4-compatible)', '[::127.0.0.1]'],
];
for (const [name, host] of loopbackSpellings) {
  test(`loopback spelled ${name} is refused`, async () => {
    await assertRefused(
      `http://${host}:${up.port}/`,
      /^target refused: must not point to a private, loopback or reserved address; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true$/,
    );
  });
}

const otherLiterals: Array<[string, string]> = [
  ['0 (0.0.0.0, this host)', '0'],
  ['[::] (unspecified)', '[::]'],
  ['[64:ff9b::a00:1] (NAT64 of 10.0.0.1)', '[64:ff9b::a00:1]'],
  ['[64:ff9b::7f00:1] (NAT64 of 127.0.0.1)', '[64:ff9b::7f00:1]'],
  ['[2002:7f00:1::] (6to4 of 127.0.0.1)', '[2002:7f00:1::]'],
  ['[2002:a9fe:a9fe::] (6to4 of 169.254.169.254)', '[2002:a9fe:a9fe::]'],
  ['169.254.169.254 (cloud metadata)', '169.254.169.254'],
  ['168.63.129.16 (Azure host platform)', '168.63.129.16'],
  ['100.64.0.1 (CGNAT)', '100.64.0.1'],
  ['198.18.0.1 (benchmarking)', '198.18.0.1'],
  ['[fd00::1] (unique local)', '[fd00::1]'],
  ['[fe80::1] (link-local)', '[fe80::1]'],
  ['[ff02::1] (multicast)', '[ff02::1]'],
  ['255.255.255.255 (broadcast)', '255.255.255.255'],
  ['224.0.0.1 (multicast)', '224.0.0.1'],
];
for (const [name, host] of otherLiterals) {
  test(`${name} is refused before any connection`, async () => {
    const href = `http://${host}:${up.port}/`;
    assertUrlCheckRefuses(href);
    await assertRefused(
      href,
      /^target refused: must not point to a private, loopback or reserved address; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true$/,
    );
  });
}

test('localhost is refused by name', async () => {
  await assertRefused(
    `http://localhost:${up.port}/`,
    /^target refused: must not point to localhost; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true$/,
    loopbackLookup(['localhost']),
  );
});

test('localhost. (trailing dot) is refused by name', async () => {
  await assertRefused(
    `http://localhost.:${up.port}/`,
    /^target refused: must not point to localhost; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true$/,
    loopbackLookup(['localhost.']),
  );
});

test('a.localhost (RFC 6761 subdomain) is refused by name', async () => {
  await assertRefused(
    `http://a.localhost:${up.port}/`,
    /^target refused: must not point to localhost; a self-hosted LinkPeek can allow it with ALLOW_PRIVATE_NETWORKS=true$/,
    loopbackLookup(['a.localhost']),
  );
});

test('credentials (user:pass@) are refused, even where private networks are allowed', async () => {
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const err = await rejection(safeFetch(new URL(`http://user:pass@127.0.0.1:${up.port}/`), { maxBytes: 1024 }));
    assert.instance(err, FetchFailed);
    assert.match((err as FetchFailed).reason, /credentials/);
    assert.is(up.hits('/'), 0);
  } finally {
    await close();
  }
});

test('a name that resolves to loopback is refused where the socket connects', async () => {
  const calls: string[] = [];
  const err = await assertRefused(
    `http://innocent.test:${up.port}/`,
    /^blocked address: innocent\.test → 127\.0\.0\.1 \(127\.0\.0\.0\/8: loopback/,
    loopbackLookup(['innocent.test'], calls),
  );
  assert.equal(calls, ['innocent.test'], 'the name passed the URL check and was stopped by the lookup guard');
  assert.ok(err.reason.startsWith('blocked address'));
});

test('a name that resolves to an IPv4-mapped loopback is refused', async () => {
  const lookup = scriptedLookup((h) => (h === 'mapped.test' ? ['::ffff:127.0.0.1'] : null));
  await assertRefused(`http://mapped.test:${up.port}/`, /^blocked address: mapped\.test → ::ffff:127\.0\.0\.1/, lookup);
});

test('a name with a public and a private address is refused whole (checked without connecting)', async () => {
  const lookup = guardLookup(scriptedLookup(() => ['93.184.216.34', '10.0.0.1']));
  const err = await rejection(promisify(lookup)('mixed.test', { all: true }));
  assert.instance(err, BlockedAddressError);
  assert.is((err as BlockedAddressError).address, '10.0.0.1');
  assert.is((err as BlockedAddressError).why, '10.0.0.0/8: private network (RFC 1918)');
});

test("a name that resolves to Azure's host platform 168.63.129.16 is refused with its reason (checked without connecting)", async () => {
  const lookup = guardLookup(scriptedLookup((h) => (h === 'wire.test' ? ['168.63.129.16'] : null)));
  const err = await rejection(promisify(lookup)('wire.test', { all: true }));
  assert.instance(err, BlockedAddressError);
  assert.is((err as BlockedAddressError).address, '168.63.129.16');
  assert.is((err as BlockedAddressError).why, '168.63.129.16/32: Azure host platform (WireServer): VM configuration, reachable from every Azure VM');
});

test('DNS rebinding: public when checked, loopback when dialled — the connect-time check refuses it', async () => {
  // The attacker's DNS answers a public address the first time and 127.0.0.1 afterwards. A service
  // that checks the name once and then connects would pass the check and dial loopback.
  const calls: string[] = [];
  const lookup = scriptedLookup((h, n) => (h === 'rebind.test' ? (n === 0 ? ['93.184.216.34'] : ['127.0.0.1']) : null), calls);
  // 1. The naive "check" (a lookup that never connects): the guard itself sees a public answer.
  const checked = (await promisify(guardLookup(lookup))('rebind.test', { all: true })) as unknown as Array<{ address: string }>;
  assert.equal(
    checked.map((a) => a.address),
    ['93.184.216.34'],
  );
  // 2. safeFetch resolves again as the socket connects, gets 127.0.0.1, and refuses it.
  await assertRefused(`http://rebind.test:${up.port}/`, /^blocked address: rebind\.test → 127\.0\.0\.1/, lookup);
  assert.equal(calls, ['rebind.test', 'rebind.test'], 'one lookup for the check, one at connect');
});

test('every new connection is checked: the second fetch of a name is resolved again', async () => {
  const calls: string[] = [];
  const lookup = loopbackLookup(['again.test'], calls);
  await assertRefused(`http://again.test:${up.port}/a`, /^blocked address/, lookup);
  const { safeFetch, close } = createSafeFetch(guarded, { resolver: lookupResolver(lookup) });
  try {
    await rejection(safeFetch(new URL(`http://again.test:${up.port}/b`), { maxBytes: 1024 }));
    await rejection(safeFetch(new URL(`http://again.test:${up.port}/c`), { maxBytes: 1024 }));
  } finally {
    await close();
  }
  assert.equal(calls, ['again.test', 'again.test', 'again.test']);
  assert.is(up.requests.length, 0);
});

test('loopback is refused when allowPrivateNetworks is off', async () => {
  await assertRefused(`http://127.0.0.1:${up.port}/`, /^target refused/);
});

test('the same loopback upstream is reached when allowPrivateNetworks is on (control)', async () => {
  const { safeFetch, close } = createSafeFetch(testConfig(), { resolver: lookupResolver(loopbackLookup(['named.test'])) });
  try {
    const res = await safeFetch(new URL(`http://named.test:${up.port}/x`), { maxBytes: 1024 });
    assert.is((await readAll(res.body)).toString(), 'secret');
    assert.is(up.hits('/x'), 1);
  } finally {
    await close();
  }
});

test('a name that does not resolve is a FetchFailed with the same public message', async () => {
  await assertRefused(`http://nowhere.test:${up.port}/`, /^request: ENOTFOUND$/);
});

test('a closed port is a FetchFailed that says the connection was refused', async () => {
  const closed = await startUpstream({ routes: {} });
  await closed.close();
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const err = await rejection(safeFetch(closed.url('/'), { maxBytes: 1024 }));
    assert.instance(err, FetchFailed);
    assert.equal((err as FetchFailed).failure, { reason: 'connection_refused', message: 'The connection was refused.' });
    assert.is((err as FetchFailed).reason, 'request: ECONNREFUSED');
  } finally {
    await close();
  }
});

test.run();
