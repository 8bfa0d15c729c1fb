import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InvalidInput, Overloaded, RateLimited } from '../src/errors.js';

// The 429's message says the wait in words that read right for one second too.

test('retry in 1 second, retry in 10 seconds', () => {
  assert.equal(
    [1, 10].map((s) => new RateLimited(s).message),
    ['Too many requests; retry in 1 second.', 'Too many requests; retry in 10 seconds.'],
  );
});

// Refusals are answers, made hundreds of times a second past capacity: they carry no stack trace
// (capturing one was 7% of a 429's CPU), and the setting is put back for every other error.

test('a 429 and a 503 Overloaded are built without a stack trace; other errors keep theirs', () => {
  const frames = (err: Error) => (err.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).length;
  const limit = Error.stackTraceLimit;
  assert.equal([frames(new RateLimited(1)), frames(new Overloaded())], [0, 0]);
  assert.is(Error.stackTraceLimit, limit, 'the limit is put back');
  assert.is(new Overloaded('why', 3).stack, 'Overloaded: The service is busy; retry in 3 seconds.');
  assert.ok(frames(new InvalidInput([])) > 0, 'another error keeps its stack');
  assert.ok(frames(new Error('plain')) > 0);
});

test.run();
