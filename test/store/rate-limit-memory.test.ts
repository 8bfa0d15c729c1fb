import { test } from 'uvu';
import * as assert from 'uvu/assert';
import FakeTimers from '@sinonjs/fake-timers';
import { MemoryRateLimitStore, type MemoryBounds } from '../../src/store/rate-limit.js';

// What only the memory store promises: bounded memory. The rule itself is tested on both stores
// in rate-limit.test.ts.

const T0 = 1_800_000_000_000;
const SPEC = { max: 20, windowMs: 10_000, blockMs: 10_000 };

function clockedStore(bounds: MemoryBounds = {}) {
  let t = T0;
  const store = new MemoryRateLimitStore({ ...SPEC, now: () => t }, bounds);
  return { store, at: (ms: number) => (t = T0 + ms) };
}

test('the memory store leaves nothing behind for 100,000 distinct clients once their window is over', async () => {
  const { store, at } = clockedStore({ maxClients: 200_000 });
  try {
    for (let i = 0; i < 100_000; i++) await store.hit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    for (let i = 0; i < 21; i++) await store.hit('192.0.2.1'); // one blocked client too
    assert.equal([store.logs.size, store.blocks.size], [100_001, 1]);
    at(9_999);
    store.sweep();
    assert.is(store.size, 100_002); // every window still open
    at(10_000);
    store.sweep();
    assert.is(store.size, 0);
  } finally {
    store.close();
  }
});

test('a client keeps at most max request times, however much it asks', async () => {
  const { store, at } = clockedStore();
  try {
    for (let s = 0; s < 5; s++) {
      at(s * 20_000); // each round after the previous block is over
      for (let i = 0; i < 50; i++) await store.hit('greedy');
    }
    assert.is(store.logs.get('greedy')!.length, 20);
  } finally {
    store.close();
  }
});

test('a long log (large max) counts exactly while its forgotten times are cut off in batches', async () => {
  let t = T0;
  const store = new MemoryRateLimitStore({ max: 1000, windowMs: 10_000, blockMs: 10_000, now: () => t });
  try {
    const remaining: number[] = [];
    for (let i = 0; i < 2000; i++, t += 20) remaining.push((await store.hit('steady')).remaining); // 500 a window
    assert.equal(remaining.slice(0, 3), [999, 998, 997]);
    assert.ok(
      remaining.slice(500).every((r) => r === 500),
      'from the second window on, always 500 in it',
    );
    assert.ok(store.logs.get('steady')!.length <= 1001, 'never more than twice the window kept');
  } finally {
    store.close();
  }
});

test('at most maxClients clients are tracked; the longest-tracked is forgotten first', async () => {
  const { store } = clockedStore({ maxClients: 3 });
  try {
    for (let i = 0; i < 21; i++) await store.hit('a'); // blocked
    await store.hit('b');
    await store.hit('c');
    await store.hit('d'); // forgets a's window
    assert.equal([...store.logs.keys()], ['b', 'c', 'd']);
    assert.is((await store.hit('a')).allowed, false); // its block is its own table's entry
    for (const id of ['e', 'f', 'g']) for (let i = 0; i < 21; i++) await store.hit(id);
    assert.equal([...store.blocks.keys()], ['e', 'f', 'g']);
    assert.is((await store.hit('a')).remaining, 19); // forgotten: a fresh budget, never someone else's
  } finally {
    store.close();
  }
});

test('the memory store sweeps on its own timer', async () => {
  const timers = FakeTimers.install({ toFake: ['setInterval', 'clearInterval'] });
  const { store, at } = clockedStore({ sweepEveryMs: 50 });
  try {
    for (let i = 0; i < 1000; i++) await store.hit(`client-${i}`);
    const swept: number[] = [];
    const sweep = store.sweep.bind(store);
    store.sweep = (now) => (swept.push(store.size), sweep(now));
    timers.tick(120);
    assert.equal(swept, [1000, 1000], 'two sweeps in 120 ms');
    assert.is(store.size, 1000); // swept, but every window still open
    at(10_000);
    timers.tick(50);
    assert.is(store.size, 0);
  } finally {
    store.close();
    timers.uninstall();
  }
});

test.run();
