// One normaliser per kind of field: trimmed, collapsed, bounded, absolute, http(s) only, numbers
// non-negative or null.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIELD_LIMITS, cut, normalizeIconSizes, normalizeMimeType, normalizeNumber, normalizeText, normalizeUrl } from '../../src/metadata/normalize.js';

test('text is trimmed, whitespace runs (NBSP and line breaks too) collapse to one space, controls go', () => {
  assert.is(normalizeText('  a \n\t b\u00a0\u00a0c\u2028d\u0000\u0007e  ', 100), 'a b c de');
  assert.is(normalizeText('   ', 100), null);
  assert.is(normalizeText(null, 100), null);
});

test('a 1 MB title comes out cut to the bound, ending in an ellipsis', () => {
  const title = normalizeText('word '.repeat(200_000), FIELD_LIMITS.title)!;
  assert.is(Array.from(title).length, FIELD_LIMITS.title);
  assert.ok(title.endsWith('…'));
});

test('cutting counts code points and never splits a surrogate pair', () => {
  assert.is(cut('😀😀😀😀', 3), '😀😀…');
  assert.is(cut('😀😀😀', 3), '😀😀😀');
  assert.is(cut('abc', 3), 'abc');
});

test('the stated bounds', () => {
  assert.equal(FIELD_LIMITS, { title: 500, description: 2000, type: 100, mimeType: 100, url: 4096, rawValue: 4096, rawKeys: 256 });
});

test('URLs resolve against the base and only http(s) comes out', () => {
  const base = new URL('https://example.com/a/b.html');
  assert.is(normalizeUrl(' ../c?d=1#e ', base), 'https://example.com/c?d=1#e');
  assert.is(normalizeUrl('//cdn.example/x.png', base), 'https://cdn.example/x.png');
  assert.is(normalizeUrl('HTTP://Example.COM', base), 'http://example.com/');
  for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', 'ftp://example.com/', 'mailto:a@b.c', 'http://[bad', '', '   ']) {
    assert.is(normalizeUrl(bad, base), null, bad);
  }
});

test('a URL longer than the bound is dropped, not cut', () => {
  const base = new URL('https://example.com/');
  assert.is(normalizeUrl(`/${'a'.repeat(FIELD_LIMITS.url)}`, base), null);
  assert.ok(normalizeUrl(`/${'a'.repeat(100)}`, base) !== null);
});

test('width, height and size parse as non-negative numbers or null', () => {
  const cases: [string | null, number | null][] = [
    ['1200', 1200],
    [' 630 ', 630],
    ['0', 0],
    ['12.5', 12.5],
    ['300px', 300],
    ['+5', 5],
    ['-1', null],
    ['auto', null],
    ['', null],
    ['1e3', null],
    ['12abc', null],
    ['9'.repeat(400), null],
    [null, null],
  ];
  for (const [raw, expected] of cases) assert.is(normalizeNumber(raw), expected, String(raw));
});

test('an image type is a lower-cased MIME essence or null', () => {
  assert.is(normalizeMimeType(' Image/JPEG; charset=binary'), 'image/jpeg');
  assert.is(normalizeMimeType('image/svg+xml'), 'image/svg+xml');
  assert.is(normalizeMimeType('jpg'), null);
  assert.is(normalizeMimeType('image/ png'), null);
  assert.is(normalizeMimeType(null), null);
});

test('icon sizes give the first width × height', () => {
  assert.equal(normalizeIconSizes('180x180'), { width: 180, height: 180 });
  assert.equal(normalizeIconSizes('16X16 32x32'), { width: 16, height: 16 });
  assert.equal(normalizeIconSizes('any'), { width: null, height: null });
  assert.equal(normalizeIconSizes(null), { width: null, height: null });
});

test.run();
