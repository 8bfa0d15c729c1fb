import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { discoveredEndpoint } from '../../src/oembed/discover.js';
import { link, page, pageUrl } from '../metadata/raw-tags.js';

// oEmbed discovery: the <link rel=alternate> a page's head declares for its JSON oEmbed answer.

const test = suite('oEmbed discovery');
const JSON_TYPE = 'application/json+oembed';
const found = (tags: ReturnType<typeof page>) => discoveredEndpoint(tags, pageUrl)?.href ?? null;

test('an application/json+oembed link is found and resolved against the page URL', () => {
  assert.is(found(page({ links: [link('alternate', '/oembed?url=x', JSON_TYPE)] })), 'https://example.com/oembed?url=x');
});

test('a relative href resolves against <base href>', () => {
  assert.is(
    found(page({ baseHref: 'https://cdn.example.net/app/', links: [link('alternate', 'oembed.json', JSON_TYPE)] })),
    'https://cdn.example.net/app/oembed.json',
  );
});

test('text/json+oembed, which some sites use, is found too', () => {
  assert.is(found(page({ links: [link('alternate', 'https://api.example.com/o', 'text/json+oembed')] })), 'https://api.example.com/o');
});

test('the type is read as a media type: case and parameters do not matter', () => {
  assert.is(found(page({ links: [link('Alternate', '/o', 'Application/JSON+oEmbed; charset=utf-8')] })), 'https://example.com/o');
});

test('XML oEmbed is ignored', () => {
  assert.is(found(page({ links: [link('alternate', '/o.xml', 'text/xml+oembed'), link('alternate', '/o.xml', 'application/xml+oembed')] })), null);
});

test('rel must hold the alternate token', () => {
  assert.is(found(page({ links: [link('stylesheet', '/o', JSON_TYPE), link('alternates', '/o', JSON_TYPE)] })), null);
  assert.is(found(page({ links: [link('nofollow alternate', '/o', JSON_TYPE)] })), 'https://example.com/o');
});

test('the first link that resolves to http(s) wins: a javascript: href is skipped', () => {
  const links = [
    link('alternate', 'javascript:alert(1)', JSON_TYPE),
    link('alternate', '  ', JSON_TYPE),
    link('alternate', '/second', JSON_TYPE),
    link('alternate', '/third', JSON_TYPE),
  ];
  assert.is(found(page({ links })), 'https://example.com/second');
});

test('a page without such a link has no endpoint', () => {
  assert.is(found(page({ links: [link('alternate', '/feed.xml', 'application/rss+xml')] })), null);
});

test.run();
