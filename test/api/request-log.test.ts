import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loggedTarget } from '../../src/api/request-log.js';

// What the request log keeps of a request target: everything but fragments, its own and those of
// the URLs in its query (RFC 3986 3.5: a fragment never reaches a server; OAuth puts tokens there).

test('a target without a fragment is logged as it came', () => {
  for (const target of ['/healthz', '/v1/metadata?url=https%3A%2F%2Fa.test%2Fp%3Fq%3D1&prefer=og', '/v1/metadata?url=https://a.test/%2523notafragment']) {
    assert.is(loggedTarget(target), target);
  }
});

test("the url parameter's fragment is cut, whatever the case of its escape", () => {
  assert.is(loggedTarget('/v1/metadata?url=https%3A%2F%2Fa.test%2Fp%23access_token%3Dsecret'), '/v1/metadata?url=https%3A%2F%2Fa.test%2Fp');
  assert.is(loggedTarget('/v1/metadata?url=https://a.test/p%23id_token=x&prefer=twitter'), '/v1/metadata?url=https%3A%2F%2Fa.test%2Fp&prefer=twitter');
  assert.is(loggedTarget('/v1/cors-proxy?url=https://a.test/i.png%23token'), '/v1/cors-proxy?url=https%3A%2F%2Fa.test%2Fi.png');
});

test("the target's own fragment is cut too (a raw # sent by a hand-made request)", () => {
  assert.is(loggedTarget('/v1/metadata?url=https://a.test/p#access_token=secret'), '/v1/metadata?url=https://a.test/p');
});

test('every parameter carrying an encoded # loses its fragment', () => {
  assert.is(
    loggedTarget('/v1/metadata?url=https://a.test/%23a&urll=https://b.test/%23b'),
    '/v1/metadata?url=https%3A%2F%2Fa.test%2F&urll=https%3A%2F%2Fb.test%2F',
  );
});

test.run();
