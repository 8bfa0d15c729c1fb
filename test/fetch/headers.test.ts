// The request headers LinkPeek sends are exactly the policy's: User-Agent, Accept,
// Accept-Language, Accept-Encoding and our Via — never anything from the client.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { OUR_VIA, carriesOurVia } from '../../src/fetch/policy.js';
import { respond, startUpstream, type UpstreamProtocol } from '../helpers/upstream.js';
import { readAll, rejection, testConfig } from './harness.js';

const test = suite('safeFetch request headers');

const expected = {
  'user-agent': 'LinkPeekTest/1.0 (+https://example.test/bot)',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
  via: '1.1 linkpeek',
};

for (const [protocol, transport] of [
  ['http', { host: true, connection: 'keep-alive' }],
  ['h2', {}],
] as Array<[UpstreamProtocol, { host?: boolean; connection?: string }]>) {
  test(`${protocol}: exactly the policy headers are sent`, async () => {
    const up = await startUpstream({ protocol, routes: { '/': respond(200, 'ok') } });
    const { safeFetch, close } = createSafeFetch(testConfig({ USER_AGENT: expected['user-agent'] }));
    try {
      await readAll((await safeFetch(up.url('/'), { maxBytes: 1024 })).body);
      const seen = { ...up.requests[0]!.headers };
      const want: Record<string, string> = { ...expected };
      if (transport.host) want.host = `127.0.0.1:${up.port}`;
      if (transport.connection) want.connection = transport.connection;
      assert.equal(seen, want);
      assert.is(up.requests[0]!.method, 'GET');
      assert.ok(carriesOurVia(seen.via), 'our Via is recognisable by the loop check');
      assert.is(OUR_VIA, '1.1 linkpeek');
    } finally {
      await close();
      await up.close();
    }
  });
}

test('the image proxy Accept and a Range header from our own code are sent', async () => {
  const up = await startUpstream({ routes: { '/': respond(206, 'o') } });
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    await readAll((await safeFetch(up.url('/'), { maxBytes: 1024, accept: 'image/*', headers: { Range: 'bytes=0-1023' } })).body);
    assert.is(up.requests[0]!.headers.accept, 'image/*');
    assert.is(up.requests[0]!.headers.range, 'bytes=0-1023');
  } finally {
    await close();
    await up.close();
  }
});

test('a client header (cookie, authorization, x-forwarded-for) can never be passed upstream', async () => {
  const up = await startUpstream({ routes: { '/': respond(200, 'ok') } });
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    for (const name of ['cookie', 'Authorization', 'x-forwarded-for', 'via', 'host']) {
      const err = await rejection(safeFetch(up.url('/'), { maxBytes: 1024, headers: { [name]: 'x' } }));
      assert.instance(err, TypeError, name);
      assert.match(err.message, /may not be sent upstream/);
    }
    assert.is(up.connections, 0);
  } finally {
    await close();
    await up.close();
  }
});

test('redirect hops send the same headers and nothing learned from the previous hop', async () => {
  const up = await startUpstream({
    routes: {
      '/start': respond(302, '', { location: '/end', 'set-cookie': 'session=abc' }),
      '/end': respond(200, 'end'),
    },
  });
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    await readAll((await safeFetch(up.url('/start'), { maxBytes: 1024 })).body);
    const [first, second] = up.requests;
    assert.equal(second!.headers, first!.headers);
    assert.is(second!.headers.cookie, undefined);
  } finally {
    await close();
    await up.close();
  }
});

test.run();
