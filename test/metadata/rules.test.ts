// The rules table, one behaviour per row: each rule and each fallback step of docs/SPEC.md's field
// orders, with the readings rules.ts states where docs/SPEC.md is terse (first occurrence wins,
// empty content falls through, preferred family → other family → HTML fallback).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metadata } from '../../generated/types.gen.js';
import { extractMetadata } from '../../src/metadata/extract.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { link, named, page, pageUrl, property } from './raw-tags.js';

type Prefer = 'og' | 'twitter';
interface Row<T> {
  behaviour: string;
  tags: RawTags;
  prefer?: Prefer;
  expected: T;
}

/** One suite per field: every row runs extractMetadata and reads the field. */
function table<T>(name: string, read: (m: Metadata) => T, rows: Row<T>[]): void {
  const s = suite(name);
  for (const row of rows) {
    s(row.behaviour, () => {
      assert.equal(read(extractMetadata(row.tags, row.prefer ?? 'og', pageUrl)), row.expected);
    });
  }
  s.run();
}

const families = [property('og:title', 'OG title'), named('twitter:title', 'Twitter title')];

table('title', (m) => m.title, [
  { behaviour: 'og:title wins over twitter:title and <title> when prefer=og', tags: page({ metas: families, title: 'HTML title' }), expected: 'OG title' },
  {
    behaviour: 'twitter:title wins over og:title when prefer=twitter',
    tags: page({ metas: families, title: 'HTML title' }),
    prefer: 'twitter',
    expected: 'Twitter title',
  },
  { behaviour: 'prefer=og without og:title falls to twitter:title', tags: page({ metas: [named('twitter:title', 'T')], title: 'H' }), expected: 'T' },
  {
    behaviour: 'prefer=twitter without twitter:title falls to og:title',
    tags: page({ metas: [property('og:title', 'O')], title: 'H' }),
    prefer: 'twitter',
    expected: 'O',
  },
  { behaviour: 'no og:title nor twitter:title falls to <title>', tags: page({ title: 'HTML title' }), expected: 'HTML title' },
  { behaviour: 'nothing at all is null', tags: page(), expected: null },
  {
    behaviour: 'an empty og:title falls through to twitter:title',
    tags: page({ metas: [property('og:title', ''), named('twitter:title', 'T')] }),
    expected: 'T',
  },
  { behaviour: 'a whitespace-only og:title falls through to <title>', tags: page({ metas: [property('og:title', ' \n\t ')], title: 'H' }), expected: 'H' },
  { behaviour: 'a whitespace-only <title> is null', tags: page({ title: '   ' }), expected: null },
  { behaviour: 'og:title is read from name= too', tags: page({ metas: [named('og:title', 'From name')], title: 'H' }), expected: 'From name' },
  {
    behaviour: 'twitter:title is read from property= too',
    tags: page({ metas: [property('twitter:title', 'From property')], title: 'H' }),
    prefer: 'twitter',
    expected: 'From property',
  },
  { behaviour: 'keys are lower-cased: OG:Title is og:title', tags: page({ metas: [property('OG:Title', 'Upper')], title: 'H' }), expected: 'Upper' },
  {
    behaviour: 'the first og:title in document order wins',
    tags: page({ metas: [property('og:title', 'First'), property('og:title', 'Second')] }),
    expected: 'First',
  },
  {
    behaviour: 'an empty first og:title gives way to a later non-empty og:title',
    tags: page({ metas: [property('og:title', ''), property('og:title', 'Later')] }),
    expected: 'Later',
  },
  {
    behaviour: 'an RDFa property list names every key in it',
    tags: page({ metas: [property('dc:title og:title', 'Listed')], title: 'H' }),
    expected: 'Listed',
  },
  {
    behaviour: 'a tag with property=og:title and name=twitter:title counts for both',
    tags: page({ metas: [{ ...property('og:title', 'Both'), name: 'Twitter:Title' }], title: 'H' }),
    prefer: 'twitter',
    expected: 'Both',
  },
  {
    behaviour: 'a property list and a name: every key counts',
    tags: page({ metas: [{ ...property(' dc:title  og:title ', 'All'), name: 'twitter:title' }], title: 'H' }),
    prefer: 'twitter',
    expected: 'All',
  },
  { behaviour: 'whitespace is trimmed and collapsed', tags: page({ title: '  Tom \n\n &\t Jerry  ' }), expected: 'Tom & Jerry' },
]);

table('description', (m) => m.description, [
  {
    behaviour: 'og:description wins when prefer=og',
    tags: page({ metas: [named('description', 'M'), named('twitter:description', 'T'), property('og:description', 'O')] }),
    expected: 'O',
  },
  {
    behaviour: 'twitter:description wins when prefer=twitter',
    tags: page({ metas: [named('description', 'M'), named('twitter:description', 'T'), property('og:description', 'O')] }),
    prefer: 'twitter',
    expected: 'T',
  },
  {
    behaviour: 'prefer=og without og:description falls to twitter:description',
    tags: page({ metas: [named('description', 'M'), named('twitter:description', 'T')] }),
    expected: 'T',
  },
  {
    behaviour: 'prefer=twitter without twitter:description falls to og:description',
    tags: page({ metas: [named('description', 'M'), property('og:description', 'O')] }),
    prefer: 'twitter',
    expected: 'O',
  },
  {
    behaviour: 'neither family falls to <meta name=description>',
    tags: page({ metas: [named('description', 'Meta description')] }),
    expected: 'Meta description',
  },
  { behaviour: '<meta name=Description> matches case-insensitively', tags: page({ metas: [named(' DESCRIPTION ', 'Upper name')] }), expected: 'Upper name' },
  {
    behaviour: 'an empty <meta name=description> gives way to a later one',
    tags: page({ metas: [named('description', ''), named('description', 'Second')] }),
    expected: 'Second',
  },
  {
    behaviour: 'an empty og:description falls through to <meta name=description>',
    tags: page({ metas: [property('og:description', ''), named('description', 'M')] }),
    expected: 'M',
  },
  { behaviour: 'a <meta property=description> is not the HTML description', tags: page({ metas: [property('description', 'P')] }), expected: null },
  { behaviour: 'nothing is null', tags: page(), expected: null },
]);

table('url', (m) => m.url, [
  {
    behaviour: 'og:url wins when prefer=og',
    tags: page({
      metas: [named('twitter:url', 'https://t.example/'), property('og:url', 'https://o.example/')],
      links: [link('canonical', 'https://c.example/')],
    }),
    expected: 'https://o.example/',
  },
  {
    behaviour: 'twitter:url wins when prefer=twitter',
    tags: page({ metas: [named('twitter:url', 'https://t.example/'), property('og:url', 'https://o.example/')] }),
    prefer: 'twitter',
    expected: 'https://t.example/',
  },
  {
    behaviour: 'no family url falls to <link rel=canonical>',
    tags: page({ links: [link('canonical', 'https://c.example/a')] }),
    expected: 'https://c.example/a',
  },
  { behaviour: 'rel=canonical matches as a case-insensitive token', tags: page({ links: [link('Canonical', '/c')] }), expected: 'https://example.com/c' },
  { behaviour: 'no tag at all falls to the page URL', tags: page(), expected: pageUrl.href },
  {
    behaviour: 'a javascript: og:url falls through to the next source',
    tags: page({ metas: [property('og:url', 'javascript:alert(1)'), named('twitter:url', 'https://t.example/')] }),
    expected: 'https://t.example/',
  },
  {
    behaviour: 'a javascript: canonical falls through to the page URL',
    tags: page({ links: [link('canonical', 'javascript:alert(1)')] }),
    expected: pageUrl.href,
  },
  {
    behaviour: 'a relative og:url resolves against the page URL',
    tags: page({ metas: [property('og:url', '../other?x=1')] }),
    expected: 'https://example.com/other?x=1',
  },
  {
    behaviour: 'a relative canonical resolves against <base href>',
    tags: page({ baseHref: 'https://cdn.example/base/', links: [link('canonical', 'doc')] }),
    expected: 'https://cdn.example/base/doc',
  },
  {
    behaviour: 'an empty og:url falls through to canonical',
    tags: page({ metas: [property('og:url', '')], links: [link('canonical', 'https://c.example/')] }),
    expected: 'https://c.example/',
  },
]);

table('image.url', (m) => m.image.url, [
  {
    behaviour: 'og:image comes first',
    tags: page({
      metas: [named('twitter:image', 'https://x/t.png'), property('og:image:secure_url', 'https://x/s.png'), property('og:image', 'https://x/o.png')],
    }),
    expected: 'https://x/o.png',
  },
  {
    behaviour: 'without og:image, og:image:secure_url',
    tags: page({ metas: [property('og:image:url', 'https://x/u.png'), property('og:image:secure_url', 'https://x/s.png')] }),
    expected: 'https://x/s.png',
  },
  {
    behaviour: 'without og:image and og:image:secure_url, og:image:url',
    tags: page({ metas: [named('twitter:image', 'https://x/t.png'), property('og:image:url', 'https://x/u.png')] }),
    expected: 'https://x/u.png',
  },
  {
    behaviour: 'without any og image, twitter:image',
    tags: page({ metas: [named('twitter:image:src', 'https://x/src.png'), named('twitter:image', 'https://x/t.png')] }),
    expected: 'https://x/t.png',
  },
  {
    behaviour: 'without twitter:image, twitter:image:src',
    tags: page({ metas: [named('twitter:image:src', 'https://x/src.png')] }),
    expected: 'https://x/src.png',
  },
  {
    behaviour: 'prefer=twitter reads twitter:image before og:image',
    tags: page({ metas: [property('og:image', 'https://x/o.png'), named('twitter:image', 'https://x/t.png')] }),
    prefer: 'twitter',
    expected: 'https://x/t.png',
  },
  {
    behaviour: 'prefer=twitter without a twitter image falls to og:image',
    tags: page({ metas: [property('og:image', 'https://x/o.png')] }),
    prefer: 'twitter',
    expected: 'https://x/o.png',
  },
  {
    behaviour: 'the first candidate that resolves to http(s) wins: a javascript: og:image is skipped',
    tags: page({ metas: [property('og:image', 'javascript:alert(1)'), property('og:image:secure_url', 'https://x/s.png')] }),
    expected: 'https://x/s.png',
  },
  {
    behaviour: 'a data: og:image is skipped',
    tags: page({ metas: [property('og:image', 'data:image/png;base64,AAAA'), named('twitter:image', 'https://x/t.png')] }),
    expected: 'https://x/t.png',
  },
  {
    behaviour: 'a relative og:image resolves against <base href>, itself resolved against the page URL',
    tags: page({ baseHref: '/static/', metas: [property('og:image', 'img/a.png')] }),
    expected: 'https://example.com/static/img/a.png',
  },
  {
    behaviour: 'a protocol-relative og:image takes the base scheme',
    tags: page({ metas: [property('og:image', '//cdn.example/a.png')] }),
    expected: 'https://cdn.example/a.png',
  },
  { behaviour: 'no image at all is null', tags: page({ title: 'T' }), expected: null },
]);

table('image details', (m) => m.image, [
  {
    behaviour: 'type, width, height and size come from og:image:type/width/height/size',
    tags: page({
      metas: [
        property('og:image', 'https://x/o.png'),
        property('og:image:type', 'Image/PNG'),
        property('og:image:width', '1200'),
        property('og:image:height', '630'),
        property('og:image:size', '34567'),
      ],
    }),
    expected: { url: 'https://x/o.png', type: 'image/png', width: 1200, height: 630, size: 34567 },
  },
  {
    behaviour: 'the first og:image:width wins',
    tags: page({ metas: [property('og:image', 'https://x/o.png'), property('og:image:width', '800'), property('og:image:width', '400')] }),
    expected: { url: 'https://x/o.png', type: null, width: 800, height: null, size: null },
  },
  {
    behaviour: 'details come from og:image:* even when twitter:image gave the URL',
    tags: page({ metas: [named('twitter:image', 'https://x/t.png'), property('og:image:width', '640')] }),
    expected: { url: 'https://x/t.png', type: null, width: 640, height: null, size: null },
  },
  {
    behaviour: 'unparsable details are null, not errors',
    tags: page({
      metas: [
        property('og:image', 'https://x/o.png'),
        property('og:image:type', 'jpg'),
        property('og:image:width', '-5'),
        property('og:image:height', 'auto'),
        property('og:image:size', '1e400'),
      ],
    }),
    expected: { url: 'https://x/o.png', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'without an image URL every detail is null',
    tags: page({ metas: [property('og:image:width', '640'), property('og:image:type', 'image/png')] }),
    expected: { url: null, type: null, width: null, height: null, size: null },
  },
]);

table('type', (m) => m.type, [
  { behaviour: 'og:type wins when prefer=og', tags: page({ metas: [named('twitter:card', 'summary'), property('og:type', 'article')] }), expected: 'article' },
  {
    behaviour: 'twitter:card wins when prefer=twitter',
    tags: page({ metas: [named('twitter:card', 'summary_large_image'), property('og:type', 'article')] }),
    prefer: 'twitter',
    expected: 'summary_large_image',
  },
  { behaviour: 'prefer=og without og:type falls to twitter:card', tags: page({ metas: [named('twitter:card', 'summary')] }), expected: 'summary' },
  {
    behaviour: 'prefer=twitter without twitter:card falls to og:type',
    tags: page({ metas: [property('og:type', 'website')] }),
    prefer: 'twitter',
    expected: 'website',
  },
  { behaviour: 'no type tag is null (there is no HTML fallback)', tags: page({ title: 'T' }), expected: null },
]);

table('favicon', (m) => m.favicon, [
  {
    behaviour: 'apple-touch-icon beats every other tier',
    tags: page({
      links: [
        link('icon', '/i.png'),
        link('icon', '/i.svg', 'image/svg+xml'),
        link('mask-icon', '/m.svg'),
        link('apple-touch-icon', '/a.png', null, '180x180'),
      ],
    }),
    expected: { url: 'https://example.com/a.png', type: null, width: 180, height: 180, size: null },
  },
  {
    behaviour: 'apple-touch-icon-precomposed is an apple-touch-icon',
    tags: page({ links: [link('icon', '/i.png'), link('apple-touch-icon-precomposed', '/p.png')] }),
    expected: { url: 'https://example.com/p.png', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'without apple-touch-icon, mask-icon',
    tags: page({ links: [link('icon', '/i.svg', 'image/svg+xml'), link('mask-icon', '/m.svg')] }),
    expected: { url: 'https://example.com/m.svg', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'without mask-icon, an SVG icon by its type',
    tags: page({ links: [link('icon', '/i.png', 'image/png'), link('icon', '/vector', 'image/svg+xml')] }),
    expected: { url: 'https://example.com/vector', type: 'image/svg+xml', width: null, height: null, size: null },
  },
  {
    behaviour: 'without mask-icon, an SVG icon by its .svg href',
    tags: page({ links: [link('icon', '/i.png'), link('icon', '/i.SVG?v=2')] }),
    expected: { url: 'https://example.com/i.SVG?v=2', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'without SVG, any other rel=icon, with its type and sizes',
    tags: page({ links: [link('stylesheet', '/s.css'), link('icon', '/i.png', 'image/png', '32x32 16x16')] }),
    expected: { url: 'https://example.com/i.png', type: 'image/png', width: 32, height: 32, size: null },
  },
  {
    behaviour: '"shortcut icon" is a rel=icon',
    tags: page({ links: [link('SHORTCUT ICON', '/s.ico')] }),
    expected: { url: 'https://example.com/s.ico', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'within a tier the first in document order wins',
    tags: page({ links: [link('icon', '/first.png'), link('icon', '/second.png')] }),
    expected: { url: 'https://example.com/first.png', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'a data: icon is skipped for the next candidate',
    tags: page({ links: [link('apple-touch-icon', 'data:image/png;base64,AAAA'), link('icon', '/i.png')] }),
    expected: { url: 'https://example.com/i.png', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'icons resolve against <base href>',
    tags: page({ baseHref: 'https://static.example/assets/', links: [link('icon', 'fav.png')] }),
    expected: { url: 'https://static.example/assets/fav.png', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: 'no icon link falls to /favicon.ico at the page origin',
    tags: page({ links: [link('canonical', '/c')] }),
    expected: { url: 'https://example.com/favicon.ico', type: null, width: null, height: null, size: null },
  },
  {
    behaviour: '"sizes=any" gives no dimensions',
    tags: page({ links: [link('icon', '/i.svg', 'image/svg+xml', 'any')] }),
    expected: { url: 'https://example.com/i.svg', type: 'image/svg+xml', width: null, height: null, size: null },
  },
]);

table('og and twitter maps', (m) => ({ og: m.og, twitter: m.twitter }), [
  {
    behaviour: 'every og:* and twitter:* tag, raw content, keys lower-cased, from property= or name=',
    tags: page({
      metas: [
        property('og:Title', '  Raw  Title '),
        named('og:site_name', 'Site &co'),
        named('twitter:card', 'summary'),
        property('twitter:site', '@site'),
        named('description', 'not a family tag'),
      ],
    }),
    expected: { og: { 'og:title': '  Raw  Title ', 'og:site_name': 'Site &co' }, twitter: { 'twitter:card': 'summary', 'twitter:site': '@site' } },
  },
  {
    behaviour: 'a repeated key keeps its first non-empty content',
    tags: page({ metas: [property('og:image', ''), property('og:image', 'https://x/1.png'), property('og:image', 'https://x/2.png')] }),
    expected: { og: { 'og:image': 'https://x/1.png' }, twitter: {} },
  },
  {
    behaviour: 'a key whose every tag is empty is kept with the first (empty) content',
    tags: page({ metas: [property('og:image', ''), property('og:image', ' ')] }),
    expected: { og: { 'og:image': '' }, twitter: {} },
  },
  {
    behaviour: 'value= stands in for a missing content= (early Twitter Card markup); content= wins when both are there',
    tags: page({
      metas: [
        { ...named('twitter:card', null), value: 'summary' },
        { ...named('twitter:site', '@content'), value: '@value' },
      ],
    }),
    expected: { og: {}, twitter: { 'twitter:card': 'summary', 'twitter:site': '@content' } },
  },
  {
    behaviour: 'a meta without content adds nothing',
    tags: page({ metas: [property('og:title', null)] }),
    expected: { og: {}, twitter: {} },
  },
  {
    behaviour: 'a tag with both property and name counts for both keys',
    tags: page({ metas: [{ property: 'og:title', name: 'twitter:title', itemprop: null, httpEquiv: null, content: 'Both', charset: null }] }),
    expected: { og: { 'og:title': 'Both' }, twitter: { 'twitter:title': 'Both' } },
  },
  {
    behaviour: 'prefer=twitter changes nothing in the maps',
    tags: page({ metas: families }),
    prefer: 'twitter',
    expected: { og: { 'og:title': 'OG title' }, twitter: { 'twitter:title': 'Twitter title' } },
  },
]);

table('prefer changes only title, description, url, image and type', (m) => ({ favicon: m.favicon.url, og: m.og, twitter: m.twitter, safety: m.safety_tags }), [
  {
    behaviour: 'prefer=twitter leaves favicon, maps and safety_tags as prefer=og has them',
    tags: page({ metas: families, links: [link('icon', '/i.png')] }),
    prefer: 'twitter',
    expected: { favicon: 'https://example.com/i.png', og: { 'og:title': 'OG title' }, twitter: { 'twitter:title': 'Twitter title' }, safety: [] },
  },
]);
