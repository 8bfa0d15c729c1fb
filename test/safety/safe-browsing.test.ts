// Google Safe Browsing v4 Lookup: the real client against a local server speaking the
// API, including its errors, malformed answers, a timeout, and the per-URL verdict cache.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { THREAT_TYPES, SafeBrowsingFailed, parseDuration, safeBrowsingProvider } from '../../src/safety/safe-browsing.js';
import { startSafeBrowsingServer, type SafeBrowsingServer } from './safe-browsing-server.js';

const test = suite('Safe Browsing lookup');
let sb: SafeBrowsingServer;

test.before(async () => {
  sb = await startSafeBrowsingServer('k3y');
});
test.after(async () => {
  await sb.close();
});
test.before.each(() => {
  sb.behaviour = { kind: 'api' };
  sb.listed.clear();
  sb.requests.length = 0;
});

const never = () => new AbortController().signal;
const input = (href: string) => ({ url: new URL(href), tags: null });

/** A provider whose clock the test moves. */
function provider(key = 'k3y') {
  let clock = 1_000_000;
  const p = safeBrowsingProvider({ apiKey: key, endpoint: sb.endpoint, now: () => clock });
  return { p, advance: (ms: number) => (clock += ms) };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

test('posts the v4 request body with ?key= and reads {} as safe', async () => {
  const { p } = provider();
  assert.equal(await p.check(input('https://fine.example/page?q=1'), never()), []);
  assert.is(sb.requests.length, 1);
  const req = sb.requests[0]!;
  assert.is(req.method, 'POST');
  assert.is(req.path, '/v4/threatMatches:find');
  assert.is(req.key, 'k3y');
  assert.match(req.contentType ?? '', /^application\/json/);
  assert.equal(req.body, {
    client: { clientId: 'linkpeek', clientVersion: '1.0.0' },
    threatInfo: {
      threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'],
      platformTypes: ['ANY_PLATFORM'],
      threatEntryTypes: ['URL'],
      threatEntries: [{ url: 'https://fine.example/page?q=1' }],
    },
  });
  assert.equal([...THREAT_TYPES], (req.body as { threatInfo: { threatTypes: string[] } }).threatInfo.threatTypes);
});

for (const threatType of THREAT_TYPES) {
  test(`a ${threatType} match is security_threat`, async () => {
    sb.listed.set('https://bad.example/', [{ threatType, cacheDuration: '300s' }]);
    const { p } = provider();
    assert.equal(await p.check(input('https://bad.example/'), never()), ['security_threat']);
  });
}

test('a match is cached for its cacheDuration, then asked again', async () => {
  sb.listed.set('https://bad.example/x', [{ threatType: 'MALWARE', cacheDuration: '120s' }]);
  const { p, advance } = provider();
  assert.equal(await p.check(input('https://bad.example/x'), never()), ['security_threat']);
  sb.listed.clear(); // delisted upstream: the cached verdict still holds until it expires
  advance(119_000);
  assert.equal(await p.check(input('https://bad.example/x'), never()), ['security_threat']);
  assert.is(sb.requests.length, 1);
  advance(2_000);
  assert.equal(await p.check(input('https://bad.example/x'), never()), []);
  assert.is(sb.requests.length, 2);
});

test('the shortest cacheDuration of several matches wins; fractional seconds are read', async () => {
  sb.listed.set('https://bad.example/two', [
    { threatType: 'MALWARE', cacheDuration: '600s' },
    { threatType: 'SOCIAL_ENGINEERING', cacheDuration: '30.5s' },
  ]);
  const { p, advance } = provider();
  await p.check(input('https://bad.example/two'), never());
  advance(30_000);
  await p.check(input('https://bad.example/two'), never());
  assert.is(sb.requests.length, 1);
  advance(1_000);
  await p.check(input('https://bad.example/two'), never());
  assert.is(sb.requests.length, 2);
});

test('"no match" is cached per URL for five minutes; other URLs are asked', async () => {
  const { p, advance } = provider();
  await p.check(input('https://fine.example/a'), never());
  await p.check(input('https://fine.example/a'), never());
  await p.check(input('https://fine.example/b'), never());
  assert.is(sb.requests.length, 2);
  advance(5 * 60_000 + 1);
  await p.check(input('https://fine.example/a'), never());
  assert.is(sb.requests.length, 3);
});

test('parseDuration reads protobuf JSON durations only', () => {
  assert.is(parseDuration('300s'), 300_000);
  assert.is(parseDuration('0.25s'), 250);
  assert.is(parseDuration('300'), null);
  assert.is(parseDuration(300), null);
  assert.is(parseDuration('-5s'), null);
});

test('a match of a threat type that was not asked for is ignored', async () => {
  sb.listed.set('https://odd.example/', [{ threatType: 'THREAT_TYPE_UNSPECIFIED' }]);
  const { p } = provider();
  assert.equal(await p.check(input('https://odd.example/'), never()), []);
});

for (const status of [400, 403, 500, 503]) {
  test(`HTTP ${status} rejects with SafeBrowsingFailed and caches nothing`, async () => {
    sb.behaviour = { kind: 'status', status };
    const { p } = provider();
    const err = await failure(Promise.resolve(p.check(input('https://any.example/'), never())));
    assert.instance(err, SafeBrowsingFailed);
    assert.is((err as SafeBrowsingFailed).status, status);
    sb.behaviour = { kind: 'api' };
    assert.equal(await p.check(input('https://any.example/'), never()), []);
    assert.is(sb.requests.length, 2);
  });
}

test('a wrong key is the API 400 (INVALID_ARGUMENT)', async () => {
  const { p } = provider('wrong');
  const err = await failure(Promise.resolve(p.check(input('https://any.example/'), never())));
  assert.instance(err, SafeBrowsingFailed);
  assert.is((err as SafeBrowsingFailed).status, 400);
  assert.is(sb.requests[0]!.key, 'wrong');
});

test('429 rejects and pauses lookups for Retry-After seconds without sending them', async () => {
  sb.behaviour = { kind: 'status', status: 429, headers: { 'retry-after': '30' } };
  const { p, advance } = provider();
  const first = await failure(Promise.resolve(p.check(input('https://any.example/1'), never())));
  assert.is((first as SafeBrowsingFailed).status, 429);
  sb.behaviour = { kind: 'api' };
  const paused = await failure(Promise.resolve(p.check(input('https://any.example/2'), never())));
  assert.instance(paused, SafeBrowsingFailed);
  assert.match((paused as Error).message, /paused/);
  assert.is(sb.requests.length, 1);
  advance(30_001);
  assert.equal(await p.check(input('https://any.example/2'), never()), []);
  assert.is(sb.requests.length, 2);
});

test('429 without Retry-After pauses for the default minute', async () => {
  sb.behaviour = { kind: 'status', status: 429 };
  const { p, advance } = provider();
  await failure(Promise.resolve(p.check(input('https://any.example/1'), never())));
  sb.behaviour = { kind: 'api' };
  advance(59_000);
  await failure(Promise.resolve(p.check(input('https://any.example/1'), never())));
  advance(1_001);
  assert.equal(await p.check(input('https://any.example/1'), never()), []);
});

test('malformed JSON rejects', async () => {
  sb.behaviour = { kind: 'malformed' };
  const { p } = provider();
  const err = await failure(Promise.resolve(p.check(input('https://any.example/'), never())));
  assert.instance(err, SafeBrowsingFailed);
  assert.match((err as Error).message, /not JSON/);
});

for (const [label, body] of [
  ['an array', '[]'],
  ['null', 'null'],
  ['matches that is not an array', '{"matches": {"threatType": "MALWARE"}}'],
] as const) {
  test(`an answer that is ${label} rejects`, async () => {
    sb.behaviour = { kind: 'status', status: 200, body };
    const { p } = provider();
    assert.instance(await failure(Promise.resolve(p.check(input('https://any.example/'), never()))), SafeBrowsingFailed);
  });
}

test('a server that never answers is abandoned when the signal aborts', async () => {
  sb.behaviour = { kind: 'hang' };
  const { p } = provider();
  const started = Date.now();
  const err = await failure(Promise.resolve(p.check(input('https://slow.example/'), AbortSignal.timeout(150))));
  const took = Date.now() - started;
  assert.ok(took >= 140 && took < 2_000, `took ${took} ms`);
  assert.is((err as Error).name, 'TimeoutError');
  assert.is(sb.requests.length, 1);
});

test.run();
