// A pure function's answers kept per input (src/memo.ts): computed once per input, bounded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memoized } from '../src/memo.js';

test('each input is computed once while it is kept, null and undefined answers included', () => {
  const calls: string[] = [];
  const lookup = memoized((input) => {
    calls.push(input);
    return input === 'none' ? undefined : input === 'null' ? null : input.toUpperCase();
  }, 8);
  for (let i = 0; i < 3; i++) {
    assert.is(lookup('a'), 'A');
    assert.is(lookup('null'), null);
    assert.is(lookup('none'), undefined);
  }
  assert.equal(calls, ['a', 'null', 'none']);
});

test('past its bound it forgets what it kept and computes again', () => {
  let calls = 0;
  const lookup = memoized((input) => (calls++, input.length), 2);
  lookup('a');
  lookup('bb');
  lookup('a');
  assert.is(calls, 2);
  lookup('ccc'); // the third input: the two kept answers are dropped
  lookup('a');
  assert.is(calls, 4);
});

test.run();
