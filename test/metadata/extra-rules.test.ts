// The rules table of the fields beyond docs/SPEC.md (extra-rules.ts), one behaviour per row: each
// source in its order, the fall-through when a source is absent or its value does not survive
// the field's normaliser, and the readings the table states (first non-empty in document order,
// keys case-insensitive, `prefer` plays no part).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metadata } from '../../generated/types.gen.js';
import { extractMetadata } from '../../src/metadata/extract.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { httpEquiv, itemprop, named, page, pageUrl, property, themeColor } from './raw-tags.js';

interface Row {
  behaviour: string;
  tags: RawTags;
  contentLanguage?: string;
  /** Where the page was fetched from; example.com's page when not given. */
  url?: URL;
  expected: string | null;
}

/** One suite per field: every row runs extractMetadata (prefer=og, then twitter: the same) and reads the field. */
function table(field: keyof Metadata, rows: Row[]): void {
  const s = suite(field);
  for (const row of rows) {
    s(row.behaviour, () => {
      for (const prefer of ['og', 'twitter'] as const) {
        assert.is(extractMetadata(row.tags, prefer, row.url ?? pageUrl, { contentLanguage: row.contentLanguage })[field], row.expected);
      }
    });
  }
  s.run();
}

const article = (fields: Record<string, unknown>) => ({ '@context': 'https://schema.org', '@type': 'NewsArticle', ...fields });

/** A LinkedIn company page: its only JSON-LD is the company it is about. */
const linkedInCompany = new URL('https://uk.linkedin.com/company/audiense');
const audiense = {
  '@context': 'http://schema.org',
  '@type': 'Organization',
  name: 'Audiense',
  url: linkedInCompany.href,
  address: { type: 'PostalAddress', addressLocality: 'London' },
};

table('site_name', [
  {
    behaviour: 'og:site_name wins over application-name and JSON-LD',
    tags: page({ metas: [named('application-name', 'App'), property('og:site_name', 'OG Site')], jsonLd: [article({ publisher: { name: 'LD' } })] }),
    expected: 'OG Site',
  },
  {
    behaviour: 'no og:site_name falls to <meta name=application-name>',
    tags: page({ metas: [named('application-name', 'App')], jsonLd: [article({ publisher: { name: 'LD' } })] }),
    expected: 'App',
  },
  {
    behaviour: 'neither falls to the JSON-LD publisher.name',
    tags: page({ jsonLd: [article({ publisher: { '@type': 'Organization', name: 'LD Publisher' } })] }),
    expected: 'LD Publisher',
  },
  {
    behaviour: "an Organization the page is about is no site name: a LinkedIn company page is LinkedIn's (its <title>)",
    tags: page({ title: 'Audiense | LinkedIn', jsonLd: [audiense] }),
    url: linkedInCompany,
    expected: 'LinkedIn',
  },
  {
    behaviour: 'an Organization the page is about, and nothing else: null',
    tags: page({ title: 'Audiense', jsonLd: [audiense] }),
    url: linkedInCompany,
    expected: null,
  },
  {
    behaviour: 'an Organization whose url is the home page of another site is no site name either',
    tags: page({ jsonLd: [{ ...audiense, url: 'https://audiense.com/' }] }),
    url: linkedInCompany,
    expected: null,
  },
  {
    behaviour: "the site's own Organization (its url the home page of the page's site) names it",
    tags: page({ jsonLd: [{ '@type': 'Organization', name: 'Marketing Land', url: 'http://marketingland.com' }] }),
    url: new URL('https://www.marketingland.com/an-inside-look-165927'),
    expected: 'Marketing Land',
  },
  {
    behaviour: "the publisher of the page's article wins over an Organization it is about",
    tags: page({ jsonLd: [audiense, article({ publisher: { '@type': 'Organization', name: 'LinkedIn News' } })] }),
    url: linkedInCompany,
    expected: 'LinkedIn News',
  },
  { behaviour: 'no JSON-LD falls to <meta name=publisher>', tags: page({ metas: [named('publisher', 'Meta Publisher')] }), expected: 'Meta Publisher' },
  {
    behaviour: 'then apple-mobile-web-app-title',
    tags: page({ metas: [named('twitter:app:name:iphone', 'App'), named('apple-mobile-web-app-title', 'Home Screen')] }),
    expected: 'Home Screen',
  },
  {
    behaviour: 'then the native app names (twitter:app:name:*, al:*:app_name)',
    tags: page({ metas: [property('al:android:app_name', 'Android'), named('twitter:app:name:googleplay', 'Play')] }),
    expected: 'Play',
  },
  {
    behaviour: 'an empty og:site_name falls through',
    tags: page({ metas: [property('og:site_name', '  '), named('application-name', 'App')] }),
    expected: 'App',
  },
  {
    behaviour: 'an og:site_name that is a URL falls through',
    tags: page({ metas: [property('og:site_name', 'https://economy.example/'), named('application-name', 'App')] }),
    expected: 'App',
  },
  { behaviour: 'whitespace is collapsed', tags: page({ metas: [property('og:site_name', '  The \n Site ')] }), expected: 'The Site' },
  { behaviour: "last, the <title>'s last part when it spells the page's host (example.com)", tags: page({ title: 'Article – Example' }), expected: 'Example' },
  {
    behaviour: "og:site_name wins over the <title>'s part",
    tags: page({ title: 'Article – Example', metas: [property('og:site_name', 'OG Site')] }),
    expected: 'OG Site',
  },
  {
    behaviour: "every earlier source wins over the <title>'s part (the app names)",
    tags: page({ title: 'Article – Example', metas: [property('al:android:app_name', 'Android')] }),
    expected: 'Android',
  },
  { behaviour: 'a <title> part that is not the host is no site name', tags: page({ title: 'Article – Site' }), expected: null },
  { behaviour: 'nothing is null', tags: page({ title: 'Article' }), expected: null },
]);

table('lang', [
  {
    behaviour: '<html lang> wins over og:locale and the header',
    tags: page({ lang: 'en-GB', metas: [property('og:locale', 'fr_FR')] }),
    contentLanguage: 'de',
    expected: 'en-GB',
  },
  { behaviour: '<html lang> is canonicalised (en-us → en-US)', tags: page({ lang: ' en-us ' }), expected: 'en-US' },
  {
    behaviour: 'no <html lang> falls to og:locale, en_US becoming en-US',
    tags: page({ metas: [property('og:locale', 'en_US')] }),
    contentLanguage: 'de',
    expected: 'en-US',
  },
  {
    behaviour: 'then <meta http-equiv=content-language>',
    tags: page({ metas: [httpEquiv('Content-Language', 'es-MX')] }),
    contentLanguage: 'de',
    expected: 'es-MX',
  },
  { behaviour: 'then the Content-Language header, its first tag', tags: page(), contentLanguage: 'de-AT, en', expected: 'de-AT' },
  {
    behaviour: 'a <html lang> that is not BCP 47 falls to og:locale',
    tags: page({ lang: 'en_US!', metas: [property('og:locale', 'pt_BR')] }),
    expected: 'pt-BR',
  },
  { behaviour: 'a language of 5–8 letters ("english") is no tag', tags: page({ lang: 'english' }), contentLanguage: 'en', expected: 'en' },
  { behaviour: '"und" (undetermined) says nothing', tags: page({ lang: 'und' }), expected: null },
  {
    behaviour: 'the extlang form is read as its preferred one (zh-cmn-Hans → cmn-Hans, which Intl makes zh-Hans)',
    tags: page({ lang: 'zh-cmn-Hans' }),
    expected: 'zh-Hans',
  },
  { behaviour: 'nothing is null', tags: page(), expected: null },
]);

table('author', [
  {
    behaviour: '<meta name=author> wins over article:author and JSON-LD',
    tags: page({ metas: [property('article:author', 'Article Author'), named('author', 'Meta Author')], jsonLd: [article({ author: 'LD' })] }),
    expected: 'Meta Author',
  },
  {
    behaviour: 'no <meta name=author> falls to article:author',
    tags: page({ metas: [property('article:author', 'Article Author')], jsonLd: [article({ author: 'LD' })] }),
    expected: 'Article Author',
  },
  {
    behaviour: 'article:author wins over og:article:author',
    tags: page({ metas: [property('og:article:author', 'OG Article Author'), property('article:author', 'Article Author')] }),
    expected: 'Article Author',
  },
  {
    behaviour: 'an article:author that is a URL falls to og:article:author',
    tags: page({
      metas: [property('article:author', 'https://www.facebook.com/bbcnews'), property('og:article:author', 'BBC News')],
      jsonLd: [article({ author: 'LD' })],
    }),
    expected: 'BBC News',
  },
  {
    behaviour: 'og:article:author wins over JSON-LD',
    tags: page({ metas: [property('og:article:author', 'OG Article Author')], jsonLd: [article({ author: 'LD' })] }),
    expected: 'OG Article Author',
  },
  {
    behaviour: 'an og:article:author that is a URL falls to JSON-LD',
    tags: page({ metas: [property('og:article:author', 'https://www.hola.com/us/authors/daniel-neira/')], jsonLd: [article({ author: 'LD' })] }),
    expected: 'LD',
  },
  {
    behaviour: 'an article:author that is a URL falls to JSON-LD',
    tags: page({
      metas: [property('article:author', 'https://www.facebook.com/someone')],
      jsonLd: [article({ author: { '@type': 'Person', name: 'LD Person' } })],
    }),
    expected: 'LD Person',
  },
  { behaviour: 'JSON-LD author as a string', tags: page({ jsonLd: [article({ author: 'Plain Name' })] }), expected: 'Plain Name' },
  {
    behaviour: 'JSON-LD author as an array of people: their names joined',
    tags: page({ jsonLd: [article({ author: [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Ann' }] })] }),
    expected: 'Ann, Bob',
  },
  { behaviour: 'JSON-LD creator stands in for author', tags: page({ jsonLd: [article({ creator: ['Parsely Creator'] })] }), expected: 'Parsely Creator' },
  {
    behaviour: 'then article:author_name and itemprop=author',
    tags: page({ metas: [itemprop('author', 'Item Author'), property('article:author_name', 'Named')] }),
    expected: 'Named',
  },
  {
    behaviour: 'then parsely-author and sailthru.author, "By " dropped',
    tags: page({ metas: [named('sailthru.author', 'By Carolyn Said')] }),
    expected: 'Carolyn Said',
  },
  { behaviour: 'then the New York Times byline (byl)', tags: page({ metas: [named('byl', 'By Corey Kilgannon')] }), expected: 'Corey Kilgannon' },
  {
    behaviour: 'then DC.creator, then citation_author',
    tags: page({ metas: [named('citation_author', 'Vaswani, Ashish'), named('DC.creator', 'Kooman, F.')] }),
    expected: 'Kooman, F.',
  },
  { behaviour: 'a twitter:creator handle is not an author', tags: page({ metas: [named('twitter:creator', '@someone')] }), expected: null },
  { behaviour: 'nothing is null', tags: page(), expected: null },
]);

table('published_time', [
  {
    behaviour: 'article:published_time wins over JSON-LD and other metas',
    tags: page({
      metas: [named('date', '2001-01-01'), property('article:published_time', '2016-12-22T10:43:37-08:00')],
      jsonLd: [article({ datePublished: '2015-01-01' })],
    }),
    expected: '2016-12-22T18:43:37.000Z',
  },
  {
    behaviour: 'no article:published_time falls to JSON-LD datePublished',
    tags: page({ metas: [named('date', '2001-01-01')], jsonLd: [article({ datePublished: '2019-06-20T12:55:10Z' })] }),
    expected: '2019-06-20T12:55:10.000Z',
  },
  {
    behaviour: "no datePublished falls to a video's JSON-LD uploadDate (Vimeo)",
    tags: page({
      metas: [named('date', '2025-05-07')],
      jsonLd: [
        [
          {
            '@type': 'VideoObject',
            name: 'Vimeo Best of the Year 2018: Winners',
            uploadDate: '2019-01-17T21:34:21+00:00',
            dateModified: '2025-05-07T18:48:37+00:00',
            author: { '@type': 'Person', name: 'Vimeo Curation' },
          },
          { '@type': 'BreadcrumbList' },
        ],
      ],
    }),
    expected: '2019-01-17T21:34:21.000Z',
  },
  {
    behaviour: "a photo's JSON-LD uploadDate (Instagram's ImageObject)",
    tags: page({
      jsonLd: [
        {
          '@context': 'http://schema.org',
          '@type': 'ImageObject',
          caption: 'The first Model 3 production car',
          representativeOfPage: 'http://schema.org/True',
          uploadDate: '2017-07-09T04:58:10',
        },
      ],
    }),
    expected: '2017-07-09T04:58:10.000Z',
  },
  {
    behaviour: 'datePublished wins over uploadDate',
    tags: page({ jsonLd: [{ '@type': 'VideoObject', uploadDate: '2019-01-17', datePublished: '2019-01-18' }] }),
    expected: '2019-01-18T00:00:00.000Z',
  },
  {
    behaviour: 'uploadDate wins over itemprop=datePublished',
    tags: page({ metas: [itemprop('datePublished', '2001-01-01')], jsonLd: [{ '@type': 'VideoObject', uploadDate: '2019-01-17' }] }),
    expected: '2019-01-17T00:00:00.000Z',
  },
  {
    behaviour: 'a JSON-LD datePublished with the month first and a US zone name (Engadget)',
    tags: page({ jsonLd: [article({ datePublished: 'Mon, Jan 7 2019 15:37:00 EST', author: { '@type': 'Person', name: 'Mallory Locklear' } })] }),
    expected: '2019-01-07T20:37:00.000Z',
  },
  {
    behaviour: 'a garbage article:published_time falls to JSON-LD',
    tags: page({ metas: [property('article:published_time', 'June 03, 2020, 06:46 PM EDT')], jsonLd: [article({ datePublished: '2020-06-03' })] }),
    expected: '2020-06-03T00:00:00.000Z',
  },
  {
    behaviour: 'then itemprop=datePublished',
    tags: page({ metas: [named('date', '2001-01-01'), itemprop('datePublished', '2008-08-01T04:06:40-07:00')] }),
    expected: '2008-08-01T11:06:40.000Z',
  },
  {
    behaviour: 'then the variants of the article: tag',
    tags: page({ metas: [named('date', '2001-01-01'), property('article:published', '2017-01-13T00:00:04-05:00')] }),
    expected: '2017-01-13T05:00:04.000Z',
  },
  {
    behaviour: 'then parsely-pub-date before sailthru.date',
    tags: page({ metas: [named('sailthru.date', '2001-01-01'), named('parsely-pub-date', '2024-04-20T04:20:00.000Z')] }),
    expected: '2024-04-20T04:20:00.000Z',
  },
  {
    behaviour: 'then DC.date.issued',
    tags: page({ metas: [named('date', '2001-01-01'), named('DC.date.issued', '2014-12-15')] }),
    expected: '2014-12-15T00:00:00.000Z',
  },
  {
    behaviour: 'JSON-LD dateCreated comes after DC.date',
    tags: page({ metas: [named('dc.date', '2020-03-27')], jsonLd: [article({ dateCreated: '2017-11-17T10:41:09Z' })] }),
    expected: '2020-03-27T00:00:00.000Z',
  },
  {
    behaviour: 'DC.date wins over citation_publication_date',
    tags: page({ metas: [named('citation_publication_date', '2020/01/01'), named('DC.Date', '2020-03-27')] }),
    expected: '2020-03-27T00:00:00.000Z',
  },
  {
    behaviour: 'then citation_publication_date before citation_date',
    tags: page({ metas: [named('citation_date', '2001/01/01'), named('citation_publication_date', '2012 Nov 26')] }),
    expected: '2012-11-26T00:00:00.000Z',
  },
  {
    behaviour: 'then citation_date before music:release_date',
    tags: page({ metas: [property('music:release_date', '2001-01-01'), named('citation_date', 'Dec 20, 2006')] }),
    expected: '2006-12-20T00:00:00.000Z',
  },
  {
    behaviour: 'then music:release_date before published_at',
    tags: page({ metas: [named('published_at', '2001-01-01'), property('music:release_date', '2020-01-06T14:00:00Z')] }),
    expected: '2020-01-06T14:00:00.000Z',
  },
  {
    behaviour: 'then published_at before citation_online_date',
    tags: page({ metas: [named('citation_online_date', '2001/01/01'), named('published_at', '2017-11-03T03:01:00-04:00')] }),
    expected: '2017-11-03T07:01:00.000Z',
  },
  { behaviour: 'then citation_online_date', tags: page({ metas: [named('citation_online_date', '2022/07/08')] }), expected: '2022-07-08T00:00:00.000Z' },
  {
    behaviour: 'a citation_publication_date of a month alone (2021/08) falls through',
    tags: page({ metas: [named('citation_publication_date', '2021/08'), named('citation_online_date', '2021/07/15')] }),
    expected: '2021-07-15T00:00:00.000Z',
  },
  {
    behaviour: 'JSON-LD dateCreated comes last, after citation_online_date',
    tags: page({ metas: [named('citation_online_date', '2023/08/02')], jsonLd: [article({ dateCreated: '2017-11-17T10:41:09Z' })] }),
    expected: '2023-08-02T00:00:00.000Z',
  },
  {
    behaviour: "<meta name=date> comes after the citation dates (a later date than the article's)",
    tags: page({ metas: [named('date', '2024-04-25T15:47:59.000Z'), named('citation_online_date', '2024/04/22')] }),
    expected: '2024-04-22T00:00:00.000Z',
  },
  {
    behaviour: '<meta name=date> comes after JSON-LD dateCreated',
    tags: page({ metas: [named('date', '2024-04-25T15:47:59.000Z')], jsonLd: [article({ dateCreated: '2024-04-22T22:44:32.799Z' })] }),
    expected: '2024-04-22T22:44:32.799Z',
  },
  {
    behaviour: '<meta name=date> when nothing else gives a date',
    tags: page({ metas: [named('date', '2015-04-08T12:46:00')] }),
    expected: '2015-04-08T12:46:00.000Z',
  },
  {
    behaviour: 'JSON-LD dateCreated when nothing else is there',
    tags: page({ jsonLd: [article({ dateCreated: '2017-11-17T10:41:09Z' })] }),
    expected: '2017-11-17T10:41:09.000Z',
  },
  {
    behaviour: 'article:modified_time is not a publication date',
    tags: page({ metas: [property('article:modified_time', '2016-12-22T10:43:37Z'), property('og:updated_time', '2016-12-22T10:43:37Z')] }),
    expected: null,
  },
  { behaviour: 'nothing is null', tags: page(), expected: null },
]);

table('theme_color', [
  {
    behaviour: 'the theme-color without media wins over a light one before it',
    tags: page({ metas: [themeColor('#ffffff', '(prefers-color-scheme: light)'), themeColor('#BB1919')] }),
    expected: '#bb1919',
  },
  {
    behaviour: 'without one, the light scheme one',
    tags: page({ metas: [themeColor('#000', '(prefers-color-scheme: dark)'), themeColor('#FFF', '( prefers-color-scheme : LIGHT )')] }),
    expected: '#fff',
  },
  { behaviour: 'a dark scheme one alone is null', tags: page({ metas: [themeColor('#000', '(prefers-color-scheme: dark)')] }), expected: null },
  { behaviour: 'another media query is not taken', tags: page({ metas: [themeColor('#000', '(min-width: 600px)')] }), expected: null },
  { behaviour: 'an empty media counts as none', tags: page({ metas: [themeColor('red', ' ')] }), expected: 'red' },
  {
    behaviour: 'a theme-color that is no color falls to the light one',
    tags: page({ metas: [themeColor('brandblue'), themeColor('#eee', '(prefers-color-scheme: light)')] }),
    expected: '#eee',
  },
  { behaviour: 'the name is matched case-insensitively', tags: page({ metas: [named(' Theme-Color ', 'rgb(0, 128, 255)')] }), expected: 'rgb(0, 128, 255)' },
  { behaviour: 'nothing is null', tags: page({ metas: [named('msapplication-TileColor', '#2b5797')] }), expected: null },
]);
