import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EMBED_LIMITS, normalizeEmbed } from '../../src/oembed/embed-fields.js';

// One clean-up step per oEmbed field: what a provider's JSON may hold and what becomes of it.

const test = suite('oEmbed fields');

const VIDEO = {
  version: '1.0',
  type: 'video',
  provider_name: 'Video Site',
  provider_url: 'https://video.example/',
  title: 'A video',
  author_name: 'Someone',
  author_url: 'https://video.example/someone',
  thumbnail_url: 'https://i.video.example/1.jpg',
  thumbnail_width: 480,
  thumbnail_height: 360,
  width: 640,
  height: 360,
  html: '<iframe src="https://video.example/embed/1"></iframe>',
};

test('a complete video answer gives every field', () => {
  const { version: _version, ...fields } = VIDEO;
  assert.equal(normalizeEmbed(VIDEO), fields);
});

test('missing fields are null; unknown fields are left out', () => {
  assert.equal(normalizeEmbed({ type: 'link', cache_age: 3600, extra: 'x' }), {
    type: 'link',
    provider_name: null,
    provider_url: null,
    title: null,
    author_name: null,
    author_url: null,
    thumbnail_url: null,
    thumbnail_width: null,
    thumbnail_height: null,
    width: null,
    height: null,
    html: null,
  });
});

test('the type must be one of photo, video, link, rich (read trimmed, without case)', () => {
  assert.is(normalizeEmbed({ ...VIDEO, type: 'movie' }), null);
  assert.is(normalizeEmbed({ ...VIDEO, type: 7 }), null);
  assert.is(normalizeEmbed({ ...VIDEO, type: undefined }), null);
  assert.is(normalizeEmbed({ ...VIDEO, type: ' Rich ' })?.type, 'rich');
});

test('an answer that is no object is no embed', () => {
  for (const answer of [null, 'video', 42, [VIDEO], true]) assert.is(normalizeEmbed(answer), null);
});

test('a type only on the prototype is not read', () => {
  assert.is(normalizeEmbed(JSON.parse('{"__proto__": {"type": "video"}}')), null);
});

test('numeric strings are accepted as dimensions; negative, infinite and other values are null', () => {
  const embed = normalizeEmbed({ ...VIDEO, width: '640', height: ' 360 ', thumbnail_width: -1, thumbnail_height: 'auto' });
  assert.equal([embed?.width, embed?.height, embed?.thumbnail_width, embed?.thumbnail_height], [640, 360, null, null]);
  const odd = normalizeEmbed({ ...VIDEO, width: JSON.parse('1e400') as number, height: '-5', thumbnail_width: true, thumbnail_height: 12.5 });
  assert.equal([odd?.width, odd?.height, odd?.thumbnail_width, odd?.thumbnail_height], [null, null, null, 12.5]);
});

test('URLs must be absolute http(s): relative and other schemes are null', () => {
  const embed = normalizeEmbed({ ...VIDEO, provider_url: '/home', author_url: 'data:text/html,x', thumbnail_url: 'javascript:alert(1)' });
  assert.equal([embed?.provider_url, embed?.author_url, embed?.thumbnail_url], [null, null, null]);
  assert.is(normalizeEmbed({ ...VIDEO, thumbnail_url: '  https://i.video.example/a b.jpg ' })?.thumbnail_url, 'https://i.video.example/a%20b.jpg');
  assert.is(normalizeEmbed({ ...VIDEO, author_url: `https://video.example/${'a'.repeat(5000)}` })?.author_url, null);
});

test('strings are trimmed, whitespace collapsed, control characters dropped and lengths bounded', () => {
  const embed = normalizeEmbed({ ...VIDEO, title: '  A\n\tvideo\u0000 ', provider_name: 'x'.repeat(300), author_name: '   ' });
  assert.is(embed?.title, 'A video');
  assert.is(embed?.provider_name, `${'x'.repeat(EMBED_LIMITS.name - 1)}…`);
  assert.is(embed?.author_name, null);
  assert.is(normalizeEmbed({ ...VIDEO, title: 42 })?.title, null);
});

test('html is kept as sent, trimmed; markup over the bound is dropped, not cut', () => {
  assert.is(normalizeEmbed({ ...VIDEO, html: '  <b>x</b>\n' })?.html, '<b>x</b>');
  assert.is(normalizeEmbed({ ...VIDEO, html: `<p>${'x'.repeat(EMBED_LIMITS.html)}</p>` })?.html, null);
  assert.is(normalizeEmbed({ ...VIDEO, html: { toString: 'x' } })?.html, null);
});

test.run();
