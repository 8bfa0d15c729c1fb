// One reading of a media type for the page, the proxy, the probe and the page's own image types
// (src/media-type.ts). The cases are where the three readings it replaces disagreed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mediaTypeEssence } from '../src/media-type.js';
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

test.run();
