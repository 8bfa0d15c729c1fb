// The normalisers of the fields beyond docs/SPEC.md, one table of inputs per kind of value: what
// each accepts and how it comes out, and what it refuses (null, so the rules fall through).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DATE_YEARS,
  EXTRA_LIMITS,
  normalizeAuthor,
  normalizeColor,
  normalizeDate,
  normalizeLang,
  normalizeSiteName,
} from '../../src/metadata/normalize-extra.js';

/** One suite per normaliser: each row is [behaviour, input, expected]. */
function table(name: string, normalize: (raw: string) => string | null, rows: [string, string, string | null][]): void {
  const s = suite(name);
  for (const [behaviour, input, expected] of rows) s(behaviour, () => assert.is(normalize(input), expected));
  s.run();
}

table('published_time (normalizeDate)', normalizeDate, [
  ['an RFC 3339 instant with Z', '2016-05-24T18:00:03.894Z', '2016-05-24T18:00:03.894Z'],
  ['an offset is applied', '2016-12-22T10:43:37-08:00', '2016-12-22T18:43:37.000Z'],
  ['an offset without a colon (±hhmm)', '2016-05-13T16:43:53+0000', '2016-05-13T16:43:53.000Z'],
  ['an offset of hours only (±hh)', '2020-01-01T10:00:00+02', '2020-01-01T08:00:00.000Z'],
  ['a space before the offset', '2017-06-21 09:51:00 -0400', '2017-06-21T13:51:00.000Z'],
  ["UTC spelled out (Ruby's Time#to_s)", '2020-06-11 17:50:52 UTC', '2020-06-11T17:50:52.000Z'],
  ['two zones are null', '2024-06-24T10:00:00-07:00Z', null],
  ['a date alone is 00:00 UTC', '2020-09-21', '2020-09-21T00:00:00.000Z'],
  ['a time without an offset is UTC', '2015-04-08T12:46:00', '2015-04-08T12:46:00.000Z'],
  ['a space instead of T (RFC 3339 5.6)', '2018-12-21 12:55:00', '2018-12-21T12:55:00.000Z'],
  ['no seconds', '2020-06-08T03:00-05:00', '2020-06-08T08:00:00.000Z'],
  ['a long fraction is cut to milliseconds', '2014-07-13T20:07:27.8200000', '2014-07-13T20:07:27.820Z'],
  ['lower-case t and z', '2020-01-02t03:04:05z', '2020-01-02T03:04:05.000Z'],
  ['a leap second is read as the next second', '2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
  ['surrounding whitespace is trimmed', '  2020-01-01  ', '2020-01-01T00:00:00.000Z'],
  ['RFC 2822 with GMT', 'Thu, 20 Jun 2019 12:55:10 GMT', '2019-06-20T12:55:10.000Z'],
  ['RFC 2822 with a numeric zone, no weekday', '6 Apr 2016 16:00:00 -0500', '2016-04-06T21:00:00.000Z'],
  ['RFC 2822 with a US zone', 'Fri, 13 Mar 2015 21:30:09 EST', '2015-03-14T02:30:09.000Z'],
  ["the month before the day, with a US zone name (Engadget's JSON-LD)", 'Mon, Jan 7 2019 15:37:00 EST', '2019-01-07T20:37:00.000Z'],
  ['the month first, a comma after the day, Pacific daylight time, no seconds', 'Jan 7, 2019 15:37 PDT', '2019-01-07T22:37:00.000Z'],
  ['the month first with each universal zone name (UT, UTC, GMT, Z)', 'Jan 7 2019 15:37:00 UT', '2019-01-07T15:37:00.000Z'],
  ['the month first with Z', 'Mon, Jan 7 2019 15:37:00 z', '2019-01-07T15:37:00.000Z'],
  ['the month first with a numeric zone', 'Sat, Jun 1 2019 23:30:00 +0530', '2019-06-01T18:00:00.000Z'],
  ['the month first with central daylight time', 'Jul 4 2020 10:00:00 CDT', '2020-07-04T15:00:00.000Z'],
  ['the month first without a zone is null (whose local time?)', 'Mon, Jan 7 2019 15:37:00', null],
  ['the month first with a zone name outside RFC 2822 is null', 'Mon, Jan 7 2019 15:37:00 CET', null],
  ['the month first with 32 January is null', 'Jan 32 2019 10:00:00 GMT', null],
  ['the month first with a numeric zone past 23:59 is null', 'Jan 7 2019 10:00:00 +2400', null],
  ['a date with slashes, year first (citation_date)', '2017/06/12', '2017-06-12T00:00:00.000Z'],
  ['a date with slashes without leading zeros', '2022/9/1', '2022-09-01T00:00:00.000Z'],
  ['year, month abbreviation, day (citation_publication_date)', '2012 Nov 26', '2012-11-26T00:00:00.000Z'],
  ['year, full month name, day, any case', '2012 NOVEMBER 6', '2012-11-06T00:00:00.000Z'],
  ['month abbreviation, day, year', 'Dec 20, 2006', '2006-12-20T00:00:00.000Z'],
  ['full month name, day, year, any case', 'september 05, 2019', '2019-09-05T00:00:00.000Z'],
  ["a month name's other spellings are null (Sept)", 'Sept 5, 2019', null],
  ['month, day, year without the comma is null', 'Dec 20 2006', null],
  ['day before month in words is null (not a form read)', '20 Dec 2006', null],
  ['a year and month with slashes are null', '2021/08', null],
  ['a date with slashes, year last, is null (US or European order?)', '05/29/2007', null],
  ['a date with slashes and a two-digit year is null', '12/06/17', null],
  ['a date with slashes and a time is null', '2017/06/12 10:00', null],
  ['a 3-digit day with slashes is null', '2017/06/012', null],
  ['31 June with slashes is null', '2020/06/31', null],
  ['day 0 with slashes is null', '2020/06/00', null],
  ['month 13 with slashes is null', '2020/13/01', null],
  ['30 February in words is null', 'Feb 30, 2020', null],
  ['32 January, year first, is null', '2020 Jan 32', null],
  ['29 February of a leap year in words is a date', 'February 29, 2024', '2024-02-29T00:00:00.000Z'],
  ['29 February of another year in words is null', '2023 Feb 29', null],
  [`a year before ${DATE_YEARS.min} in words is null`, 'Jan 1, 1799', null],
  [`a year after ${DATE_YEARS.max} with slashes is null`, '2200/01/01', null],
  ['a 5-digit year in words is null', 'Jan 1, 20200', null],
  ['the Unix epoch with slashes is null', '1970/01/01', null],
  ['a month name glued to more letters is null', 'Decimal 20, 2006', null],
  ['asctime with a zone is null', 'Fri Mar 13 21:30:09 EST 2015', null],
  ['a long run of digits and slashes is null', `2020/${'1/'.repeat(5_000)}1`, null],
  ['a long run of month names is null', `${'Dec '.repeat(5_000)}20, 2006`, null],
  ['a garbage format is null', 'yesterday at noon', null],
  ['a US-style date is null (which is the month?)', '4/6/2016', null],
  ['a date in words is null', 'June 03, 2020, 06:46 PM EDT', null],
  ['a year alone is null', '2010', null],
  ['a year and month are null', '2021-08', null],
  ['a compact ISO date is null', '20170113', null],
  ['asctime is null', 'Tue May 24 05:55:00 2016', null],
  ['a broken minute is null', '2016-05-24T05:55%Z', null],
  ['month 13 is null', '2020-13-01', null],
  ['30 February is null', '2021-02-30', null],
  ['29 February of a leap year is a date', '2024-02-29', '2024-02-29T00:00:00.000Z'],
  ['25:00 is null', '2020-01-01T25:00:00Z', null],
  ['an offset past 23:59 is null', '2020-01-01T00:00:00+24:00', null],
  [`a year before ${DATE_YEARS.min} (an unset date) is null`, '0001-01-01T00:00:00Z', null],
  [`a year after ${DATE_YEARS.max} is null`, '2200-01-01', null],
  ['the Unix epoch itself (a zero) is null', '1970-01-01T00:00:00Z', null],
  ['a long string is null without being read', `2020-01-01${' '.repeat(100)}x`, null],
]);

table('lang (normalizeLang)', normalizeLang, [
  ['a language alone', 'en', 'en'],
  ['case is canonicalised', 'EN-us', 'en-US'],
  ['a script and a region', 'zh-hant-tw', 'zh-Hant-TW'],
  ['a deprecated code becomes the current one', 'iw', 'he'],
  ['the first of a list', 'de-AT, en;q=0.5', 'de-AT'],
  ['an underscore is not BCP 47', 'en_US', null],
  ['a language name is not a tag', 'english', null],
  ['a private-use tag alone names no language', 'x-klingon', null],
  ['und is null', 'und', null],
  ['garbage is null', 'en US!', null],
  ['an over-long tag is null', `en-${'a'.repeat(EXTRA_LIMITS.lang)}`, null],
  ['empty is null', ' ', null],
]);

table('theme_color (normalizeColor)', normalizeColor, [
  ['#rgb', '#FFF', '#fff'],
  ['#rgba', '#fff8', '#fff8'],
  ['#rrggbb', '#BB1919', '#bb1919'],
  ['#rrggbbaa', '#bb191980', '#bb191980'],
  ['#rrggb is null', '#bb191', null],
  ['a named color, lower-cased', 'RebeccaPurple', 'rebeccapurple'],
  ['an unknown name is null', 'brandblue', null],
  ['rgb() with commas', 'rgb(0, 128, 255)', 'rgb(0, 128, 255)'],
  ['rgba() with percentages', 'RGBA(10%,20%,30%,0.5)', 'rgba(10%,20%,30%,0.5)'],
  ['rgb() with spaces and an alpha', 'rgb(0 128 255 / 50%)', 'rgb(0 128 255 / 50%)'],
  ['rgb() mixing numbers and percentages with commas is null', 'rgb(0, 50%, 255)', null],
  ['rgb() with two components is null', 'rgb(0, 128)', null],
  ['hsl() with commas', 'hsl(120, 100%, 50%)', 'hsl(120, 100%, 50%)'],
  ['hsla() with an angle', 'hsla(0.5turn, 10%, 20%, .3)', 'hsla(0.5turn, 10%, 20%, .3)'],
  ['hsl() with spaces', 'hsl(120deg 100% 50% / 0.2)', 'hsl(120deg 100% 50% / 0.2)'],
  ['hsl() with comma syntax needs percentages', 'hsl(120, 100, 50)', null],
  ['whitespace is collapsed', '  rgb( 1 ,\n 2 , 3 )  ', 'rgb( 1 , 2 , 3 )'],
  ['CSS injection after a color is null', 'red;background:url(https://evil.example/x)', null],
  ['a closing parenthesis inside the arguments is null', 'rgb(1,2,3);x:url(a)', null],
  ['var() is null', 'var(--brand)', null],
  ['transparent is null (no color for a browser bar)', 'transparent', null],
  ['an over-long value is null', `rgb(${'1'.repeat(EXTRA_LIMITS.color)}, 1, 1)`, null],
]);

table('author (normalizeAuthor)', normalizeAuthor, [
  ['a name is trimmed and collapsed', '  Jane \n Doe ', 'Jane Doe'],
  ['a leading "By " is dropped', 'By Corey Kilgannon', 'Corey Kilgannon'],
  ['"By" inside a name stays', 'Byron Katie', 'Byron Katie'],
  ['a URL is null', 'https://www.theguardian.com/profile/someone', null],
  ['a www. link is null', 'www.facebook.com/marisakendallnews', null],
  ['"By " alone is null', 'By ', null],
]);

table('site_name (normalizeSiteName)', normalizeSiteName, [
  ['a name is trimmed', ' Ars Technica ', 'Ars Technica'],
  ['a URL is null', 'https://economy.okezone.com/', null],
  ['a domain name is a name', 'Bloomberg.com', 'Bloomberg.com'],
]);

const bounds = suite('bounds');
bounds('a 1 MB author or site name comes out cut to its bound', () => {
  assert.is(Array.from(normalizeAuthor('word '.repeat(200_000))!).length, EXTRA_LIMITS.author);
  assert.is(Array.from(normalizeSiteName('word '.repeat(200_000))!).length, EXTRA_LIMITS.siteName);
});
bounds.run();
