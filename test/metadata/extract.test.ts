// extractMetadata end to end from bytes, emptyMetadata, and the contract's shape.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyMetadata, extractBoth, extractMetadata } from '../../src/metadata/extract.js';
import { scanHead } from '../../wasm-parser/index.js';
import { named, page, pageUrl, property } from './raw-tags.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/pages/${name}`, import.meta.url)));

test('a full head gives the whole object, relative URLs resolved against <base href>', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  const meta = extractMetadata(tags, 'og', new URL('https://example.com/articles/tom'));
  assert.equal(meta, {
    title: 'Tom & Jerry (og)',
    description: 'The og description',
    url: 'https://example.com/articles/tom-and-jerry',
    image: { url: 'https://example.com/articles/images/cover.jpg?w=1200&h=630', type: 'image/jpeg', width: 1200, height: 630, size: null },
    type: 'article',
    favicon: { url: 'https://example.com/apple-touch-icon.png', type: null, width: 180, height: 180, size: null },
    og: {
      'og:title': 'Tom & Jerry (og)',
      'og:description': 'The og description',
      'og:url': 'https://example.com/articles/tom-and-jerry',
      'og:type': 'article',
      'og:image': 'images/cover.jpg?w=1200&h=630',
      'og:image:type': 'image/jpeg',
      'og:image:width': '1200',
      'og:image:height': '630',
    },
    twitter: {
      'twitter:card': 'summary_large_image',
      'twitter:title': 'Tom & Jerry (twitter)',
      'twitter:description': 'The twitter description',
      'twitter:image': 'https://cdn.example.com/twitter.png',
      'twitter:url': 'https://example.com/t/tom',
    },
    safety_tags: [],
    site_name: null,
    // <html lang="en-GB">
    lang: 'en-GB',
    author: null,
    published_time: null,
    theme_color: null,
    embed: null,
    // The page URL, whatever its og:url or <link rel=canonical> say.
    fetched_url: 'https://example.com/articles/tom',
  });
});

test('the extra-fields fixture: JSON-LD @graph with references, og:locale, the light theme-color', async () => {
  const { tags } = await scanHead(fixture('extra-fields.html'));
  const both = extractBoth(tags, new URL('https://example.com/gatos'), { contentLanguage: 'en' });
  for (const meta of [both.og, both.twitter]) {
    assert.equal(
      {
        site_name: meta.site_name,
        lang: meta.lang,
        author: meta.author,
        published_time: meta.published_time,
        theme_color: meta.theme_color,
        embed: meta.embed,
      },
      // The article's publisher by reference, not the WebSite's name; the article's date, not the
      // WebPage's; its authors, one by reference; og:locale before the header; nothing from <body>.
      {
        site_name: 'Revista Exemplo',
        lang: 'pt-BR',
        author: 'Ana Souza, Bruno Lima',
        published_time: '2021-03-04T08:06:07.000Z',
        theme_color: '#fafafa',
        embed: null,
      },
    );
  }
});

test('prefer=twitter on the same page changes title, description, url, image and type only', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  const base = new URL('https://example.com/articles/tom');
  const og = extractMetadata(tags, 'og', base);
  const twitter = extractMetadata(tags, 'twitter', base);
  assert.is(twitter.title, 'Tom & Jerry (twitter)');
  assert.is(twitter.description, 'The twitter description');
  assert.is(twitter.url, 'https://example.com/t/tom');
  // The image details still come from the first og:image:* tags (the reading rules.ts states).
  assert.equal(twitter.image, { url: 'https://cdn.example.com/twitter.png', type: 'image/jpeg', width: 1200, height: 630, size: null });
  assert.is(twitter.type, 'summary_large_image');
  assert.equal({ ...twitter, title: 0, description: 0, url: 0, image: 0, type: 0 }, { ...og, title: 0, description: 0, url: 0, image: 0, type: 0 });
});

test('extractBoth gives both preferences as extractMetadata does, indexing the tags once', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  const base = new URL('https://example.com/articles/tom');
  const requestedUrl = new URL('https://example.com/t');
  const both = extractBoth(tags, base, { requestedUrl });
  assert.equal(both.og, extractMetadata(tags, 'og', base, { requestedUrl }));
  assert.equal(both.twitter, extractMetadata(tags, 'twitter', base, { requestedUrl }));
  assert.is.not(both.og.title, both.twitter.title);
  // The raw maps are one object each, kept once in the cache.
  assert.ok(both.og.og === both.twitter.og && both.og.twitter === both.twitter.twitter);
});

test('first non-empty og:image and falls-through from the repeated-keys fixture', async () => {
  const { tags } = await scanHead(fixture('repeated-keys.html'));
  const meta = extractMetadata(tags, 'og', pageUrl);
  assert.is(meta.title, null);
  assert.is(meta.url, 'https://example.com/relative/twitter-url');
  assert.equal(meta.image, { url: 'https://example.com/secure.png', type: null, width: null, height: 400, size: 12345 });
  assert.equal(meta.favicon, { url: 'https://example.com/mask.svg', type: null, width: null, height: null, size: null });
  assert.is(meta.og['og:image'], 'javascript:alert(1)');
});

test('a 15 KB og:title read from bytes comes out bounded (a longer tag is not read at all: scanner tests)', async () => {
  const big = 'x'.repeat(15 * 1024);
  const { tags } = await scanHead(new TextEncoder().encode(`<meta property="og:title" content="${big}"><body>`));
  const meta = extractMetadata(tags, 'og', pageUrl);
  assert.is(meta.title!.length, 500);
  assert.is(meta.og['og:title']!.length, 4096);
});

test('a <base href> that is not http(s) is ignored: links resolve against the page URL', () => {
  const meta = extractMetadata(page({ baseHref: 'javascript:void(0)', metas: [property('og:image', 'a.png')] }), 'og', pageUrl);
  assert.is(meta.image.url, 'https://example.com/section/a.png');
});

test('the requested URL, when given, is the last fallback of url; links still resolve against the page URL', () => {
  const requestedUrl = new URL('http://short.example/x');
  const meta = extractMetadata(page({ metas: [named('twitter:image', 'i.png')] }), 'og', pageUrl, { requestedUrl });
  assert.is(meta.url, 'http://short.example/x');
  assert.is(meta.image.url, 'https://example.com/section/i.png');
  assert.is(meta.favicon.url, 'https://example.com/favicon.ico');
});

test('no cors_safe is set: the image probe decides it later', () => {
  const meta = extractMetadata(page({ metas: [property('og:image', 'https://x/o.png')] }), 'og', pageUrl);
  assert.not.ok('cors_safe' in meta.image);
  assert.not.ok('cors_safe' in meta.favicon);
});

test('emptyMetadata: nulls, the page URL and /favicon.ico of its origin', () => {
  assert.equal(emptyMetadata(new URL('https://files.example/docs/report.pdf?v=2')), {
    title: null,
    description: null,
    url: 'https://files.example/docs/report.pdf?v=2',
    image: { url: null, type: null, width: null, height: null, size: null },
    type: null,
    favicon: { url: 'https://files.example/favicon.ico', type: null, width: null, height: null, size: null },
    og: {},
    twitter: {},
    safety_tags: [],
    site_name: null,
    lang: null,
    author: null,
    published_time: null,
    theme_color: null,
    embed: null,
    fetched_url: 'https://files.example/docs/report.pdf?v=2',
  });
});

test('extraction is pure: the same input gives equal output and the input is not changed', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  const before = JSON.stringify(tags);
  const a = extractMetadata(tags, 'og', pageUrl);
  const b = extractMetadata(tags, 'og', pageUrl);
  assert.equal(a, b);
  assert.is(JSON.stringify(tags), before);
});

test.run();
