import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLinkPeek } from '../../src/index.js';
import { boundRawMap, RAW_MAP_BOUNDS } from '../../src/metadata/answer-bounds.js';
import { LOCAL_DNS_SERVERS } from '../helpers/local-dns.js';

// The raw og and twitter maps of an answer are bounded (src/metadata/answer-bounds.ts), and the
// bounds sit above what real pages carry: they are left exactly as they are.

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

test('oversized answer attack: a page of 240 og and 240 twitter tags of 4,096 characters answers within 40 KB, its first tags kept in order', async () => {
  const long = (i: number) => `${i}:`.padEnd(4096, 'x');
  const metas = Array.from({ length: 240 }, (_, i) => `<meta property="og:k${i}" content="${long(i)}"><meta name="twitter:k${i}" content="${long(i)}">`);
  const html = `<html><head><title>Big</title>${metas.join('')}</head><body></body></html>`;
  const lp = createLinkPeek({ dnsServers: [LOCAL_DNS_SERVERS] });
  try {
    const answer = await lp.extract(html, { url: 'https://example.com/big' });
    assert.ok(html.length > 1_900_000);
    assert.ok(jsonBytes(answer) < 40_000, `${jsonBytes(answer)} bytes`);
    for (const map of [answer.og, answer.twitter]) assert.ok(jsonBytes(map) <= RAW_MAP_BOUNDS.jsonBytes, `${jsonBytes(map)} bytes`);
    assert.equal(Object.keys(answer.og).slice(0, 3), ['og:k0', 'og:k1', 'og:k2']);
    assert.is(answer.og['og:k0'], long(0), 'kept whole, never cut');
    assert.is(answer.title, 'Big');
  } finally {
    await lp.close();
  }
});

test("a real page's maps pass as they are: 22 keys, a 4,109-character og:description", () => {
  const map: Record<string, string> = { 'og:description': 'd'.repeat(4109) };
  for (let i = 0; i < 21; i++) map[`twitter:app:name:k${i}`] = `value ${i}`;
  assert.is(boundRawMap(map), map);
});

test('a value over 8,192 characters is left out, never cut; the entries after it are kept', () => {
  const map = { 'og:image': `data:image/png;base64,${'A'.repeat(9000)}`, 'og:title': 'Kept' };
  assert.equal(boundRawMap(map), { 'og:title': 'Kept' });
});

test('at most 64 entries, in the page order', () => {
  const map = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`og:k${i}`, 'v']));
  const out = boundRawMap(map);
  assert.equal(Object.keys(out), Object.keys(map).slice(0, 64));
});

test('an entry that would take the map past 16 KiB of JSON is left out, a smaller one after it still fits', () => {
  const map = { 'og:a': 'a'.repeat(8000), 'og:b': 'b'.repeat(8000), 'og:c': 'c'.repeat(1000), 'og:d': 'small' };
  const out = boundRawMap(map);
  assert.equal(Object.keys(out), ['og:a', 'og:b', 'og:d']);
  assert.ok(jsonBytes(out) <= RAW_MAP_BOUNDS.jsonBytes);
});

test.run();
