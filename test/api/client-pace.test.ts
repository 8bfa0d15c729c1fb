import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientPace, type PaceClock } from '../../src/api/client-pace.js';
import { startService } from '../helpers/service.js';

// Every path pays, in time too: past its burst, a client's requests are let in at
// CLIENT_REQUESTS_PER_SECOND and the rest wait their turn, held rather than refused.

/** A clock that moves only when told; admit() never waits on it. */
function stoppedClock(): PaceClock & { set(ms: number): void } {
  let now = 0;
  return { now: () => now, after: () => {}, set: (ms) => (now = ms) };
}

test('one address asking /healthz over 32 keep-alive connections as fast as it can: past its burst, one request every 1/rate s, the rest held', () => {
  const clock = stoppedClock();
  const pace = new ClientPace({ perSecond: 50, burst: 100, maxWaitMs: 2000, clock });
  const waits = Array.from({ length: 132 }, () => pace.admit('192.0.2.1'));
  assert.equal(waits.slice(0, 100), Array(100).fill(0), 'the burst at once');
  // Then 20 ms apart: 32 more requests (one per connection) wait up to 640 ms, none refused.
  assert.equal(
    waits.slice(100).map((w) => Math.round(w!)),
    Array.from({ length: 32 }, (_, i) => 20 * (i + 1)),
  );
});

test('another client is let in at once while one is held back', () => {
  const clock = stoppedClock();
  const pace = new ClientPace({ perSecond: 50, burst: 10, maxWaitMs: 2000, clock });
  for (let i = 0; i < 60; i++) pace.admit('192.0.2.1');
  assert.ok(pace.admit('192.0.2.1')! > 900);
  assert.is(pace.admit('2001:db8:1:2'), 0);
});

test('a request whose turn is more than maxWaitMs away is refused (429), and is not counted', () => {
  const clock = stoppedClock();
  const pace = new ClientPace({ perSecond: 10, burst: 1, maxWaitMs: 2000, clock });
  const waits = Array.from({ length: 22 }, () => pace.admit('192.0.2.1'));
  assert.is(waits[20], 2000);
  assert.is(waits[21], null);
  // The refused one took no turn: 100 ms later the next is 2,000 ms away again, not 2,100.
  clock.set(100);
  assert.is(pace.admit('192.0.2.1'), 2000);
});

test('a client back on schedule starts with its whole burst again, and is forgotten', () => {
  const clock = stoppedClock();
  const pace = new ClientPace({ perSecond: 50, burst: 5, maxWaitMs: 2000, clock });
  for (let i = 0; i < 8; i++) pace.admit('192.0.2.1');
  clock.set(10_000);
  assert.equal(
    Array.from({ length: 5 }, () => pace.admit('192.0.2.1')),
    [0, 0, 0, 0, 0],
  );
  // Thousands of clients, each once: those back on schedule are swept, the map stays small.
  for (let i = 0; i < 10_000; i++) {
    clock.set(20_000 + i * 100);
    pace.admit(`10.0.${i >> 8}.${i & 255}`);
  }
  assert.ok(pace.size < 5000, `${pace.size} clients remembered`);
});

test('through the service: requests past the burst are answered in turn, none refused, and another address at once', async () => {
  const svc = await startService({ CLIENT_REQUESTS_PER_SECOND: '20', CLIENT_REQUEST_BURST: '4' });
  try {
    const started = performance.now();
    const held = Array.from({ length: 12 }, () =>
      svc.request('/healthz', { localAddress: '127.0.0.91' }).then((res) => ({ status: res.status, ms: performance.now() - started })),
    );
    const other = await svc.request('/openapi.yaml', { localAddress: '127.0.0.92' });
    const otherMs = performance.now() - started;
    const answers = await Promise.all(held);
    assert.equal(
      answers.map((a) => a.status),
      Array(12).fill(200),
    );
    // 8 past the burst of 4, 50 ms apart: the last is let in 400 ms after the first.
    const last = Math.max(...answers.map((a) => a.ms));
    assert.ok(last >= 380, `the last answered after ${last.toFixed(0)} ms`);
    assert.is(other.status, 200);
    assert.ok(otherMs < last, `the other address was answered after ${otherMs.toFixed(0)} ms, before the held ones`);
  } finally {
    await svc.close();
  }
});

test('through the service: a request whose turn is past 2 s away is 429 with Retry-After 2', async () => {
  const svc = await startService({ CLIENT_REQUESTS_PER_SECOND: '2', CLIENT_REQUEST_BURST: '1' });
  try {
    const answers = await Promise.all(Array.from({ length: 7 }, () => svc.request('/healthz', { localAddress: '127.0.0.93' })));
    const statuses = answers.map((a) => a.status).sort();
    // Waits of 0, 0.5, 1, 1.5 and 2 s are held; 2.5 s and 3 s are past the bound.
    assert.equal(statuses, [200, 200, 200, 200, 200, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    assert.is(refused.headers.get('retry-after'), '2');
    assert.equal(refused.json, { code: 429, message: 'Too many requests of this client at once; retry in 2 seconds.' });
  } finally {
    await svc.close();
  }
});

test.run();
