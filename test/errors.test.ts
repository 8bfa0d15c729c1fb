import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimited } from '../src/errors.js';

// The 429's message says the wait in words that read right for one second too.

test('retry in 1 second, retry in 10 seconds', () => {
  assert.equal(
    [1, 10].map((s) => new RateLimited(s).message),
    ['Too many requests; retry in 1 second.', 'Too many requests; retry in 10 seconds.'],
  );
});

test.run();
