// One reading of a media type for the page (its type and its charset), the proxy, the probe and
// the page's own image types (src/media-type.ts). The cases are where the readings it replaces
// disagreed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isHtmlMediaType, mediaTypeCharset, mediaTypeEssence } from '../src/media-type.js';
import { normalizeMimeType } from '../src/metadata/normalize.js';

test('the essence is type/subtype in lower case, without parameters or surrounding whitespace', () => {
  assert.is(mediaTypeEssence('image/png'), 'image/png');
  assert.is(mediaTypeEssence(' Image/JPEG; charset=binary'), 'image/jpeg');
  assert.is(mediaTypeEssence('\tText/HTML ;charset="utf-8"\t'), 'text/html');
  assert.is(mediaTypeEssence('image/svg+xml'), 'image/svg+xml');
});

test('parameters that do not parse leave the essence standing', () => {
  for (const value of ['image/png;', 'image/png;;', 'image/png; charset', 'image/png; a=b; c', 'text/html; charset=utf-8 (comment)']) {
    assert.is(mediaTypeEssence(value), value.startsWith('text/') ? 'text/html' : 'image/png', value);
  }
});

test('every RFC 9110 token character counts in type and subtype (one copy refused ~ % | ` and *)', () => {
  for (const value of ['image/x~icon', "image/x'y", 'image/x%y', 'image/x|y', 'image/x`y', 'image/*']) {
    assert.is(mediaTypeEssence(value), value, value);
  }
});

test('a comma anywhere is two media types, not one (one copy kept "image/png; name=\\"a,b\\"")', () => {
  for (const value of ['image/png, text/html', 'image/png,image/gif', 'image/png; q=1, text/html', 'image/png; name="a,b"']) {
    assert.is(mediaTypeEssence(value), null, value);
  }
});

test('missing or malformed media types are null', () => {
  for (const value of [undefined, null, '', ';', 'jpg', 'image', 'image/', '/png', 'image/ png', 'image /png', 'image/pñg', 'image/png\u0000']) {
    assert.is(mediaTypeEssence(value), null, String(value));
  }
});

test('a page-stated image type is bounded as a field: longer than 100 characters is null', () => {
  const long = `image/${'x'.repeat(95)}`;
  assert.is(mediaTypeEssence(long), long);
  assert.is(normalizeMimeType(long), null);
  assert.is(normalizeMimeType('Image/PNG; x'), 'image/png');
});

test('the charset parameter is found quoted or not, its name in any case, its value as written', () => {
  assert.is(mediaTypeCharset('text/html; charset=Shift_JIS'), 'Shift_JIS');
  assert.is(mediaTypeCharset('text/html;CHARSET="euc-jp"; foo=bar'), 'euc-jp');
  assert.is(mediaTypeCharset('text/html ; charset=utf-8 '), 'utf-8');
  for (const value of ['text/html', 'text/html; charset=', 'text/html; charset=""', 'text/html; charsetx=utf-8', null, undefined, '']) {
    assert.is(mediaTypeCharset(value), null, String(value));
  }
});

test('a charset stands beside parameters that do not parse; two Content-Types give none', () => {
  assert.is(mediaTypeCharset('text/html; charset=utf-8;'), 'utf-8');
  assert.is(mediaTypeCharset('text/html; x; charset=windows-1251'), 'windows-1251');
  assert.is(mediaTypeCharset('text/html; title="a;b"; charset=koi8-r'), 'koi8-r');
  assert.is(mediaTypeCharset('text/html; charset=utf-8, text/html; charset=gbk'), null);
});

test('a page is text/html or XHTML, or a type that cannot be read (one copy took "text/plain; x=html" for a page)', () => {
  for (const value of ['text/html', 'TEXT/HTML; charset=utf-8', 'application/xhtml+xml', '', null, 'html', 'text/html, text/html']) {
    assert.ok(isHtmlMediaType(value), String(value));
  }
  for (const value of ['text/plain; x=html', 'text/plain', 'application/json', 'image/png', 'application/xml', 'text/html-sandboxed']) {
    assert.not.ok(isHtmlMediaType(value), value);
  }
});

test.run();
