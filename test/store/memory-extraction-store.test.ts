// The in-memory extraction store's byte bound (CACHE_MAX_BYTES): each entry is counted by the
// length its JSON would have, worked out without building it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonLength, MemoryExtractionStore, type Extraction } from '../../src/cache/extraction-store.js';
import type { Metadata } from '../../generated/types.gen.js';

const expiresAt = Date.now() + 60_000;

function page(title: string): Metadata {
  return {
    url: 'https://example.com/a',
    title,
    description: null,
    image: { url: 'https://example.com/i.png', width: 1200, height: 630, type: 'image/png', alt: null },
    type: 'article',
    site_name: 'Example',
    favicon: 'https://example.com/favicon.ico',
    og: { 'og:title': title, 'og:type': 'article' },
    twitter: {},
    safety: { tags: [], checked: true },
  } as unknown as Metadata;
}

test('an entry is counted as the length of its JSON, nested objects, arrays, numbers, booleans and null included', () => {
  const ok: Extraction = { ok: true, og: page('Title, “quoted”'), twitter: page('Other'), expiresAt };
  const failed: Extraction = { ok: false, code: 'FETCH_TIMEOUT', reason: 'timeout', failure: undefined, expiresAt };
  assert.is(jsonLength(ok), JSON.stringify(ok).length);
  assert.is(jsonLength(failed), JSON.stringify(failed).length, 'an undefined property is left out, as JSON leaves it');
  assert.is(jsonLength([1, 'a', null, false, { b: [] }]), JSON.stringify([1, 'a', null, false, { b: [] }]).length);
});

test('a flood of large pages: the store keeps at most its bytes, forgetting the least recently used first', async () => {
  const store = new MemoryExtractionStore({ maxEntries: 1000, maxBytes: 100_000 });
  const big = (n: number): Extraction => ({ ok: true, og: page(`${n}`.padEnd(10_000, 'x')), twitter: page('t'), expiresAt });
  for (let n = 0; n < 20; n++) await store.set(`k${n}`, big(n));
  assert.is(store.size, 4, 'four entries of about 21 KB each fit in 100,000 bytes');
  assert.is(await store.get('k0'), undefined);
  assert.is((await store.get('k19'))?.ok, true);
});

test.run();
