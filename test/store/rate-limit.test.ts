import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryRateLimitStore } from '../../src/store/rate-limit.js';

test('the memory store leaves nothing behind for 100,000 distinct clients once their window is over', async () => {
  const store = new MemoryRateLimitStore({ max: 2, windowMs: 200, blockMs: 200 });
  try {
    for (let i = 0; i < 100_000; i++) store.hit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    // a few blocked clients too
    for (let i = 0; i < 3; i++) store.hit('192.0.2.1');
    assert.is(store.size, 100_002); // 100,001 windows and one block
    assert.is(store.blocks.size, 1);
    await new Promise((r) => setTimeout(r, 250));
    store.sweep();
    assert.is(store.size, 0);
  } finally {
    store.close();
  }
});

test('the memory store sweeps on its own timer', async () => {
  const store = new MemoryRateLimitStore({ max: 2, windowMs: 1000, blockMs: 1000 });
  try {
    for (let i = 0; i < 1000; i++) store.hit(`client-${i}`);
    assert.is(store.size, 1000);
    await new Promise((r) => setTimeout(r, 2100));
    assert.is(store.size, 0);
  } finally {
    store.close();
  }
});

test.run();
