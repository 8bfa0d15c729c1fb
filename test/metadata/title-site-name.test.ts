// The site's name read from the `<title>` (title-site-name.ts): the title's last part, else its
// first, counts only when it spells the page's host. One table of titles and hosts it accepts,
// one of those it refuses (null: a wrong site name is worse than none), and the bound on length.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { extractBoth, extractMetadata } from '../../src/metadata/extract.js';
import { TITLE_SITE_MAX, siteNameFromTitle } from '../../src/metadata/title-site-name.js';
import { page } from './raw-tags.js';

/** One suite per table: each row is [behaviour, title, page URL, expected]. */
function table(name: string, rows: [string, string | null, string | null, string | null][]): void {
  const s = suite(name);
  for (const [behaviour, title, url, expected] of rows) {
    s(behaviour, () => assert.is(siteNameFromTitle(title, url === null ? null : new URL(url)), expected));
  }
  s.run();
}

table('accepted', [
  ['the last part after " - " equals the host\'s label', 'Bob Dylan - Wikipedia', 'https://en.wikipedia.org/wiki/Bob_Dylan', 'Wikipedia'],
  ['after " | ", spaces and case aside', 'cucumber yogurt raita salad | smitten kitchen', 'https://smittenkitchen.com/2024/06/raita/', 'smitten kitchen'],
  ['after " – " (en dash)', 'Here are the top AI certifications – Computerworld', 'https://www.computerworld.com/article/1.html', 'Computerworld'],
  ['after " — " (em dash), the last of several parts', 'Inside the Deep Web Drug Lab — Backchannel — Medium', 'https://medium.com/backchannel/x', 'Medium'],
  ['after " • "', 'EMC makes a LEAP forward • The Register', 'https://www.theregister.co.uk/2016/05/02/emc/', 'The Register'],
  ['after " · "', 'Pull requests · GitHub', 'https://github.com/pulls', 'GitHub'],
  ['after " :: "', 'Forum thread :: Example', 'https://www.example.org/t/1', 'Example'],
  ['mixed separators: the part after the last one', 'Churchill | Film | Dwutygodnik', 'https://www.dwutygodnik.com/artykul/1.html', 'Dwutygodnik'],
  [
    'a domain ending is dropped before comparing, kept in the value',
    'The sharing economy is a lie - Salon.com',
    'https://www.salon.com/2015/01/x/',
    'Salon.com',
  ],
  ['a leading "The" is dropped before comparing', 'Facebook can track you | The Guardian', 'https://www.theguardian.com/technology/x', 'The Guardian'],
  ["the host's hyphens are dropped", 'Release notes | Android Developers', 'https://www.android-developers.com/notes', 'Android Developers'],
  ['a two-part domain ending too', 'Orphee Mickalad leading by-election | Stuff.co.nz', 'https://www.stuff.co.nz/national/1', 'Stuff.co.nz'],
  ['digits count', 'Comin in for a landing! - 9GAG', 'https://9gag.com/gag/1', '9GAG'],
  [
    "the host's label inside a longer last part, as whole words",
    'Neural Substrate of Cold-Seeking Behavior | PLOS One',
    'https://journals.plos.org/plosone/article?id=1',
    'PLOS One',
  ],
  ["the last part inside the host's label, at its start", 'Post | Lean Data', 'https://www.leandatainc.com/blog/x', 'Lean Data'],
  ['no match at the end: the first part', 'LeanData | The Winds of Change', 'https://www.leandatainc.com/blog/x', 'LeanData'],
  ['a host on a shared domain is read by its own label (github.io)', 'Docs - MathJax', 'https://mathjax.github.io/docs/', 'MathJax'],
  ['whitespace runs inside the title are one space', '  Hermitian matrix \n -  Wikipedia  ', 'https://en.wikipedia.org/wiki/Hermitian_matrix', 'Wikipedia'],
]);

table('refused', [
  ['a last part that is not the host', 'Article – Some Other Site', 'https://example.com/a', null],
  [
    'an author after the separator (on a host the name does not spell)',
    'The Most Precious Resource is Agency - by Simon Sarris',
    'https://simonsarris.substack.com/p/x',
    null,
  ],
  ['a headline fragment mentioning the host, as the first part', 'Dropbox announces new plans for teams | TechCrunch', 'https://www.dropbox.com/news', null],
  ['a headline fragment mentioning the host, as the last part', 'Opinion - Why Dropbox is changing', 'https://www.dropbox.com/news', null],
  [
    "a first part that adds words to the host's name (a product, not the site)",
    'Transistor Embed | Episode 32 – Before and After Product-Market Fit',
    'https://share.transistor.fm/e/1',
    null,
  ],
  ["a section named by a short part of the host's label", 'Startups raise less - Tech', 'https://techcrunch.com/2024/x', null],
  ["the host's label inside a part only as part of a word", 'Reviews | Examplesite', 'https://example.com/r', null],
  ["another host name that starts with the host's label", 'Bob Dylan - wikipedia.example.com', 'https://en.wikipedia.org/wiki/Bob_Dylan', null],
  ['a title with no separator', 'Wikipedia', 'https://en.wikipedia.org/', null],
  ['a hyphen without spaces is no separator', 'Node-Wikipedia', 'https://en.wikipedia.org/', null],
  ['a colon is no separator', 'Wikipedia: Bob Dylan', 'https://en.wikipedia.org/', null],
  ['a short label matches only whole', 'News | BBC World', 'https://www.bbc.co.uk/news', null],
  ["the platform's name on a user's page of a shared domain (github.io)", 'Sign in · GitHub', 'https://someone.github.io/login', null],
  ['an IDN host (its label is punycode)', 'Startseite - Bücher', 'https://bücher.de/', null],
  ['a punycode host written as such', 'Startseite - xn--bcher-kva', 'https://xn--bcher-kva.de/', null],
  ['an IPv4 host', 'Router admin - 192', 'http://192.168.1.1/', null],
  ['an IPv6 host', 'Status - 1', 'http://[2001:db8::1]/', null],
  ['a single-label host', 'Dashboard - Intranet', 'http://intranet/', null],
  ["a part ending with a separator's mark", 'Post :: Pixnet ::', 'https://someone.pixnet.net/blog/1', null],
  ['no title', null, 'https://en.wikipedia.org/', null],
  ['no page URL', 'Bob Dylan - Wikipedia', null, null],
]);

const bounds = suite('bounds');
bounds(`a title longer than ${TITLE_SITE_MAX} characters is not looked at`, () => {
  const title = `${'a'.repeat(TITLE_SITE_MAX)} - Wikipedia`;
  assert.is(siteNameFromTitle(title, new URL('https://en.wikipedia.org/')), null);
  assert.is(siteNameFromTitle(`${'a'.repeat(TITLE_SITE_MAX - 20)} - Wikipedia`, new URL('https://en.wikipedia.org/')), 'Wikipedia');
});
bounds('a hostile 64 KiB title of separators returns null at once', () => {
  const hostile = `${' - | – '.repeat(9362)}Wikipedia`;
  const started = process.cpuUsage();
  for (let i = 0; i < 100; i++) assert.is(siteNameFromTitle(hostile, new URL('https://en.wikipedia.org/')), null);
  assert.ok(cpuMs(started) < 50, 'bounded before any work');
});
bounds('a title at the bound made of separators and dots stays cheap', () => {
  const title = `${'. - .'.repeat(Math.floor(TITLE_SITE_MAX / 5))}`;
  const started = process.cpuUsage();
  for (let i = 0; i < 1000; i++) assert.is(siteNameFromTitle(title, new URL('https://example.com/')), null);
  assert.ok(cpuMs(started) < 500);
});

/**
 * This process's CPU time since `started`, in ms: the work done, which a busy machine does not
 * inflate as it does the wall clock (at load 20 on two cores the second bound failed on time).
 */
function cpuMs(started: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}
bounds.run();

const extraction = suite('through the extraction');
extraction('extractMetadata and extractBoth read the host of the URL the page was fetched from', () => {
  const tags = page({ title: 'Post | Example' });
  const fetched = new URL('https://www.example.com/post');
  assert.is(extractMetadata(tags, 'og', fetched).site_name, 'Example');
  const both = extractBoth(tags, fetched);
  assert.is(both.og.site_name, 'Example');
  assert.is(both.twitter.site_name, 'Example');
});
extraction('the URL asked for before redirects is not the host', () => {
  const tags = page({ title: 'Post | Example' });
  const options = { requestedUrl: new URL('https://example.com/post') };
  assert.is(extractMetadata(tags, 'og', new URL('https://elsewhere.org/post'), options).site_name, null);
  assert.is(extractBoth(tags, new URL('https://elsewhere.org/post'), options).og.site_name, null);
});
extraction.run();
