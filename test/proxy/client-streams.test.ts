// The cap on one client's open upstream image fetches, driven by hand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientStreams } from '../../src/proxy/client-streams.js';

const settled = async <T>(p: Promise<T>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test('one client pulling many 4 MB images: past its cap the next waits before any upstream is opened; another client opens at once', async () => {
  const streams = new ClientStreams(4);
  const signal = new AbortController().signal;
  const held = await Promise.all(Array.from({ length: 4 }, () => streams.acquire('192.0.2.1', signal)));
  const fifth = streams.acquire('192.0.2.1', signal);
  assert.is(await settled(fifth), false, 'the fifth waits');
  assert.ok(await settled(streams.acquire('192.0.2.2', signal)), 'another client is not held');
  held[0]!();
  held[0]!(); // twice: counted once
  assert.ok(await settled(fifth), 'the released slot goes to the one waiting');
  assert.is(streams.held('192.0.2.1'), 4);
  (await fifth)();
  for (const release of held.slice(1)) release();
  assert.is(streams.held('192.0.2.1'), 0);
});

test('a waiting request whose client went away leaves the line with the abort reason, and takes no slot', async () => {
  const streams = new ClientStreams(1);
  const first = await streams.acquire('192.0.2.1', new AbortController().signal);
  const leaving = new AbortController();
  const gone = streams.acquire('192.0.2.1', leaving.signal);
  const staying = streams.acquire('192.0.2.1', new AbortController().signal);
  leaving.abort(new Error('every client went away'));
  await gone.then(
    () => assert.unreachable('it left'),
    (err: Error) => assert.is(err.message, 'every client went away'),
  );
  first();
  assert.ok(await settled(staying), 'the next in line gets the slot');
  (await staying)();
  assert.is(streams.held('192.0.2.1'), 0);
});

test('no cap: every request opens at once', async () => {
  const streams = new ClientStreams(0);
  const signal = new AbortController().signal;
  const all = await Promise.all(Array.from({ length: 100 }, () => streams.acquire('192.0.2.1', signal)));
  assert.is(all.length, 100);
});

test.run();
