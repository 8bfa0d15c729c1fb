// Reading the head's JSON-LD (json-ld.ts): shapes pages use (one object, arrays, @graph, @id
// references, mainEntity), which node is the main entity, and the bounds on the walk.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JSON_LD_LIMITS, type JsonLdFacts, readJsonLd } from '../../src/metadata/json-ld.js';

const none: JsonLdFacts = { author: null, datePublished: null, dateCreated: null, uploadDate: null, publisherName: null };
const read = (...scripts: unknown[]) => readJsonLd(scripts.map((s) => (typeof s === 'string' ? s : JSON.stringify(s))));
const article = {
  '@context': 'https://schema.org',
  '@type': 'NewsArticle',
  author: { '@type': 'Person', name: 'Ann' },
  datePublished: '2020-01-02',
  publisher: { '@type': 'Organization', name: 'Daily' },
};
const facts = { ...none, author: 'Ann', datePublished: '2020-01-02', publisherName: 'Daily' };

const shapes = suite('shapes');
shapes('one object', () => assert.equal(read(article), facts));
shapes('a top-level array', () => assert.equal(read([{ '@type': 'BreadcrumbList' }, article]), facts));
shapes('an @graph', () => assert.equal(read({ '@context': 'https://schema.org', '@graph': [{ '@type': 'WebSite', name: 'Site' }, article] }), facts));
shapes('an array of graphs', () => assert.equal(read([{ '@graph': [{ '@type': 'WebSite', name: 'Site' }] }, { '@graph': [article] }]), facts));
shapes('several scripts: the first main entity in document order', () => {
  assert.equal(read({ '@type': 'Organization', name: 'Org' }, article, { ...article, author: 'Later' }), facts);
});
shapes('@id references to nodes elsewhere in the graph (Yoast)', () => {
  const graph = {
    '@graph': [
      { '@type': 'Article', author: { '@id': '#ann' }, publisher: { '@id': '#org' }, datePublished: '2021-03-04T05:06:07Z' },
      { '@type': 'Organization', '@id': '#org', name: 'Org Name' },
      { '@type': 'Person', '@id': '#ann', name: 'Ann Ref' },
    ],
  };
  assert.equal(read(graph), { ...none, author: 'Ann Ref', datePublished: '2021-03-04T05:06:07Z', publisherName: 'Org Name' });
});
shapes('a reference nothing names gives nothing', () => assert.equal(read({ '@type': 'Article', author: { '@id': '#nobody' } }), none));
shapes("the article as a WebPage's mainEntity", () => {
  assert.equal(read({ '@type': 'WebPage', datePublished: '2000-01-01', mainEntity: article }), facts);
});
shapes('a full IRI as @type, and a list of types', () => {
  assert.equal(read({ '@type': 'http://schema.org/BlogPosting', author: 'A' }).author, 'A');
  assert.equal(read({ '@type': ['Thing', 'ReportageNewsArticle'], author: 'B' }).author, 'B');
});
shapes('value objects and lists of values', () => {
  assert.equal(read({ '@type': 'Article', author: { name: [{ '@value': 'Val' }] }, datePublished: ['2020-05-05', '2020-06-06'] }), {
    ...none,
    author: 'Val',
    datePublished: '2020-05-05',
  });
});
shapes('creator stands in for author; dateCreated is read beside datePublished (Parse.ly)', () => {
  assert.equal(read({ '@type': 'NewsArticle', creator: ['Marisa Kendall'], dateCreated: '2016-04-20T01:52:32Z' }), {
    ...none,
    author: 'Marisa Kendall',
    dateCreated: '2016-04-20T01:52:32Z',
  });
});
shapes('a CDATA wrapper (//<![CDATA[ … //]]>) is dropped', () => assert.equal(read(`//<![CDATA[\n${JSON.stringify(article)}\n//]]>`), facts));
shapes('a raw line break inside a string is read as a space', () => {
  assert.equal(read('{"@type": "Article", "author": "Ann\nLee"}').author, 'Ann Lee');
});
shapes('invalid JSON is skipped and the next script still read', () => assert.equal(read('{"@type": "Article", "author": ', article), facts));
shapes('JSON that is not an object (a number, a string, null) gives nothing', () => assert.equal(read('42', '"text"', 'null'), none));
shapes.run();

const main = suite('the main entity');
main('an Article wins over a WebPage before it', () => {
  assert.equal(read([{ '@type': 'WebPage', datePublished: '1999-01-01', author: 'Page' }, article]), facts);
});
main('a WebPage is read when no article is there', () => {
  assert.equal(read({ '@type': 'WebPage', datePublished: '1999-01-01' }).datePublished, '1999-01-01');
});
main("a video or a recipe is the page's work", () => {
  assert.equal(read({ '@type': 'VideoObject', author: 'Channel', datePublished: '2008-08-01' }), { ...none, author: 'Channel', datePublished: '2008-08-01' });
});
main("a Movie's author is not the page's author", () =>
  assert.equal(read({ '@type': 'Movie', author: [{ name: 'Christopher Nolan' }], datePublished: '2010' }), none),
);
main('a Review nested in a Product is not the main entity', () => {
  assert.equal(read({ '@type': 'Product', review: { '@type': 'Review', author: 'Reviewer', datePublished: '2020-01-01' } }), none);
});
main("a video's, a photo's or a song's page: its work's uploadDate and datePublished", () => {
  assert.equal(read({ '@type': 'VideoObject', uploadDate: '2019-01-17T21:34:21+00:00', author: { '@type': 'Person', name: 'Vimeo Curation' } }), {
    ...none,
    author: 'Vimeo Curation',
    uploadDate: '2019-01-17T21:34:21+00:00',
  });
  assert.equal(read({ '@type': 'ImageObject', uploadDate: '2017-07-09T04:58:10' }).uploadDate, '2017-07-09T04:58:10');
  assert.equal(read({ '@type': 'MusicRecording', name: 'DESPECHÁ', datePublished: '2022-07-28T00:00:00.000Z' }).datePublished, '2022-07-28T00:00:00.000Z');
});
main('the publisher name falls back to a WebSite node', () => {
  assert.equal(
    read([
      { '@type': 'Organization', name: 'Org' },
      { '@type': 'WebSite', name: 'Site' },
    ]).publisherName,
    'Site',
  );
});

const readAt = (pageUrl: string, ...scripts: object[]) =>
  readJsonLd(
    scripts.map((s) => JSON.stringify(s)),
    new URL(pageUrl),
  );
main("then an Organization whose url is the home page of the page's own site", () => {
  const theGuardian = { '@type': 'Organization', name: 'The Guardian', url: 'http://www.theguardian.com/' };
  assert.is(readAt('https://www.theguardian.com/technology/2017/jul/03/story', theGuardian).publisherName, 'The Guardian');
  assert.is(readAt('https://amp.theguardian.com/technology/story', theGuardian).publisherName, 'The Guardian', 'another host of the same registrable domain');
  assert.is(readAt('https://www.example.com/story', { '@type': 'NewsMediaOrganization', name: 'Media', url: 'https://example.com' }).publisherName, 'Media');
});
main('never an Organization the page is about (a LinkedIn company page)', () => {
  const audiense = { '@context': 'http://schema.org', '@type': 'Organization', name: 'Audiense', url: 'https://uk.linkedin.com/company/audiense' };
  assert.is(readAt('https://uk.linkedin.com/company/audiense', audiense).publisherName, null);
  assert.is(
    readAt('https://uk.linkedin.com/company/audiense', { ...audiense, url: 'https://audiense.com/' }).publisherName,
    null,
    'its own site is not this one',
  );
  assert.is(readAt('https://audiense.com/about', { ...audiense, url: 'https://audiense.com/?ref=1' }).publisherName, null, 'a home page with a query');
  assert.is(readAt('https://audiense.com/about', { ...audiense, url: 'ftp://audiense.com/' }).publisherName, null, 'not a web page');
  assert.is(read({ ...audiense, url: 'https://audiense.com/' }).publisherName, null, "the page's own URL unknown");
  assert.is(read({ '@type': 'Organization', name: 'No URL' }).publisherName, null);
});
main.run();

const bounds = suite('bounds');
bounds(`an article nested deeper than ${JSON_LD_LIMITS.depth} levels is not read`, () => {
  let value: unknown = article;
  for (let i = 0; i < JSON_LD_LIMITS.depth + 1; i++) value = [value];
  assert.equal(read(value), none);
  let shallow: unknown = article;
  for (let i = 0; i < JSON_LD_LIMITS.depth - 1; i++) shallow = [shallow];
  assert.equal(read(shallow), facts);
});
bounds(`nodes past the first ${JSON_LD_LIMITS.nodes} are not visited`, () => {
  const filler = Array.from({ length: JSON_LD_LIMITS.nodes }, () => ({ '@type': 'Thing' }));
  assert.equal(read([...filler, article]), none);
  assert.equal(read([...filler.slice(0, 10), article]), facts);
});
bounds('many authors are gathered only up to the author bound', () => {
  const author = Array.from({ length: 10_000 }, (_, i) => ({ name: `Person ${i}` }));
  const names = read({ '@type': 'Article', author }).author!;
  assert.ok(names.startsWith('Person 0, Person 1, '));
  assert.ok(names.split(', ').length < 100);
});
bounds.run();
