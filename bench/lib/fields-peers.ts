// The fields beyond docs/SPEC.md beside metascraper's rules for the same things (author, date,
// publisher, lang), page by page over the corpus: how often each side fills the field, and how
// often the two agree where both do. metascraper reads the whole document (body heuristics
// included: bylines, `time` elements, a logo's alt text, the title's suffix); we read the head.
// Also how often our values match what readability's and metascraper's own test suites expect
// for the pages they ship (corpus/expected: readability's byline, siteName, publishedTime and lang
// are reviewed by hand; metascraper's are its snapshots). ACCURACY_FIELDS_SAMPLE=<n> also prints
// both sides' values for n pages picked evenly, for a spot check by hand; ACCURACY_FIELDS_MISSES=1
// every value that differs from a suite's expected one; ACCURACY_FIELDS_IN_HEAD=1 every value only
// metascraper gives that is written somewhere in the head (the pages of the "head bound").

import metascraper from 'metascraper';
import metascraperAuthor from 'metascraper-author';
import metascraperDate from 'metascraper-date';
import metascraperLang from 'metascraper-lang';
import metascraperPublisher from 'metascraper-publisher';
import type { Metadata } from '../../generated/types.gen.js';

interface FieldPair {
  ours: keyof Metadata;
  theirs: 'author' | 'date' | 'publisher' | 'lang';
  /** Both values in a comparable form. */
  same(ours: string, theirs: string): boolean;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * metascraper's `date` is its dateModified rule first, then datePublished: equal instants or the
 * same day count as agreement. Its lang is the two-letter language alone (`en` for our `en-US`).
 */
const PAIRS: FieldPair[] = [
  { ours: 'site_name', theirs: 'publisher', same: (a, b) => squash(a) === squash(b) },
  { ours: 'lang', theirs: 'lang', same: (a, b) => a.toLowerCase().split('-')[0] === b.toLowerCase() },
  { ours: 'author', theirs: 'author', same: (a, b) => squash(a) === squash(b) },
  { ours: 'published_time', theirs: 'date', same: (a, b) => a.slice(0, 10) === new Date(b).toISOString().slice(0, 10) },
];

/** The expected-value names for our fields, per peer suite. */
const EXPECTED: Record<string, Partial<Record<keyof Metadata, string>>> = {
  'mozilla/readability': { site_name: 'siteName', author: 'byline', published_time: 'publishedTime', lang: 'lang' },
  'microlinkhq/metascraper': { site_name: 'publisher', author: 'author', published_time: 'date', lang: 'lang' },
};

/** Dates agree when they are the same instant, or the same day when one side has no time. */
function sameDate(ours: string, theirs: string): boolean {
  const time = Date.parse(theirs);
  if (Number.isNaN(time)) return false;
  return Date.parse(ours) === time || (/^\d{4}-\d{2}-\d{2}$/.test(theirs.trim()) && ours.slice(0, 10) === theirs.trim());
}

const sameExpected = (field: keyof Metadata, ours: string, theirs: string) =>
  field === 'published_time' ? sameDate(ours, theirs) : field === 'lang' ? PAIRS[1]!.same(ours, theirs.split('-')[0]!) : squash(ours) === squash(theirs);

interface Tally {
  ours: number;
  theirs: number;
  both: number;
  agree: number;
  /** Pages only metascraper fills whose value is written somewhere in the head (see inHead). */
  inHead: number;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Whether metascraper's value appears in the page's head at all, in any form a head-only rule could
 * read: the text itself (case and spacing aside) or, for a date, its day written as 2024-03-15,
 * 2024/03/15, 20240315, "March 15, 2024", "Mar 15, 2024" or "15 March 2024". A value that is
 * nowhere in the head came from the body: no head-only rule can give it. Generous on purpose (a
 * modification date in the head counts too), so ours plus these pages bounds what any rule
 * reading the head could reach on metascraper's pages.
 */
function inHead(field: FieldPair['theirs'], value: string, head: string): boolean {
  if (field !== 'date') return head.includes(squash(value));
  const day = new Date(value);
  if (Number.isNaN(day.getTime())) return false;
  const [y, m, d] = day.toISOString().slice(0, 10).split('-') as [string, string, string];
  const month = MONTHS[Number(m) - 1]!.toLowerCase();
  const forms = [
    `${y}-${m}-${d}`,
    `${y}/${m}/${d}`,
    `${y}${m}${d}`,
    `${month} ${Number(d)}, ${y}`,
    `${month.slice(0, 3)} ${Number(d)}, ${y}`,
    `${Number(d)} ${month} ${y}`,
  ];
  return forms.some((form) => head.includes(form));
}

export class FieldsBesideMetascraper {
  private readonly scrape = metascraper([metascraperAuthor(), metascraperDate(), metascraperPublisher(), metascraperLang()]);
  private readonly tallies = new Map<string, Tally>(PAIRS.map((p) => [p.ours, { ours: 0, theirs: 0, both: 0, agree: 0, inHead: 0 }]));
  private readonly rows: string[] = [];
  /** `suite field` → pages where the suite expects a value: how many we fill, and with its value. */
  private readonly expected = new Map<string, { expected: number; filled: number; same: number; misses: string[] }>();
  private pages = 0;

  /** Runs metascraper on `html` (the page decoded as our scanner decoded it) and counts both sides. */
  async add(name: string, html: string, url: URL, meta: Metadata): Promise<void> {
    // metascraper rejects a host without a TLD (readability's http://fakehost/).
    const theirUrl = url.hostname.includes('.') ? url.href : 'https://example.org/test/page.html';
    const theirs = (await this.scrape({ html, url: theirUrl })) as Record<string, unknown>;
    this.pages++;
    const bodyAt = html.search(/<body[\s>]/i);
    const head = squash(bodyAt === -1 ? html : html.slice(0, bodyAt));
    const cells: string[] = [];
    for (const pair of PAIRS) {
      const tally = this.tallies.get(pair.ours)!;
      const a = meta[pair.ours];
      const b = theirs[pair.theirs];
      const ours = typeof a === 'string' ? a : null;
      const their = typeof b === 'string' && b !== '' ? b : null;
      if (ours !== null) tally.ours++;
      if (their !== null) tally.theirs++;
      if (ours !== null && their !== null) {
        tally.both++;
        if (pair.same(ours, their)) tally.agree++;
      }
      if (ours === null && their !== null && inHead(pair.theirs, their, head)) {
        tally.inHead++;
        if (process.env.ACCURACY_FIELDS_IN_HEAD) console.log(`  in head, not read: ${name} ${pair.ours} ${JSON.stringify(their.slice(0, 80))}`);
      }
      cells.push(`    ${pair.ours.padEnd(15)} ours ${JSON.stringify(ours)}  metascraper ${JSON.stringify(their)}`);
    }
    this.rows.push(`  ${name}\n${cells.join('\n')}`);
  }

  /** Counts our values against what a peer suite expects for the page (`expected` is its JSON). */
  expect(repo: string, name: string, expected: Record<string, unknown>, meta: Metadata): void {
    const names = EXPECTED[repo];
    if (!names) return;
    const tests = (expected.tests as { expected?: Record<string, unknown> }[] | undefined) ?? [{ expected }];
    const values = tests[0]?.expected ?? {};
    for (const [field, key] of Object.entries(names) as [keyof Metadata, string][]) {
      const theirs = values[key];
      if (typeof theirs !== 'string' || theirs.trim() === '') continue;
      const row = this.expected.get(`${repo.split('/')[1]} ${field}`) ?? { expected: 0, filled: 0, same: 0, misses: [] };
      this.expected.set(`${repo.split('/')[1]} ${field}`, row);
      row.expected++;
      const ours = meta[field];
      if (typeof ours !== 'string') continue;
      row.filled++;
      if (sameExpected(field, ours, theirs)) row.same++;
      else row.misses.push(`    ${name}: ours ${JSON.stringify(ours)}, expected ${JSON.stringify(theirs.slice(0, 80))}`);
    }
  }

  print(): void {
    const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
    const n = this.pages;
    console.log(`\nfields beyond SPEC.md beside metascraper 5.49 (same pages; filled = non-null):`);
    console.log(
      `  ${'field (ours / metascraper)'.padEnd(30)} ${'ours'.padStart(14)} ${'metascraper'.padStart(14)} ${'head bound'.padStart(14)}   agree where both`,
    );
    for (const pair of PAIRS) {
      const t = this.tallies.get(pair.ours)!;
      const label = `${pair.ours} / ${pair.theirs}`;
      const bound = t.ours + t.inHead;
      console.log(
        `  ${label.padEnd(30)} ${`${t.ours} ${pct(t.ours, n)}`.padStart(14)} ${`${t.theirs} ${pct(t.theirs, n)}`.padStart(14)} ${`${bound} ${pct(bound, n)}`.padStart(14)}   ${t.agree} / ${t.both} ${pct(t.agree, t.both)}`,
      );
    }
    console.log(`  head bound: ours, plus the pages only metascraper fills whose value is written in the head at all`);
    console.log(`\n  against the peers' own expected values (pages where their suite expects one):`);
    console.log(`  ${'suite field'.padEnd(30)} ${'expected'.padStart(8)} ${'we fill'.padStart(8)} ${'same value'.padStart(14)}`);
    for (const [key, row] of [...this.expected].sort()) {
      console.log(
        `  ${key.padEnd(30)} ${String(row.expected).padStart(8)} ${String(row.filled).padStart(8)} ${`${row.same} ${pct(row.same, row.filled)}`.padStart(14)}`,
      );
    }
    const sample = Number(process.env.ACCURACY_FIELDS_SAMPLE ?? 0);
    if (process.env.ACCURACY_FIELDS_MISSES) {
      for (const [key, row] of [...this.expected].sort()) console.log(`\n  ${key}: different values\n${row.misses.join('\n')}`);
    }
    if (sample > 0) {
      console.log(`\nspot-check sample (${sample} pages, evenly spaced):`);
      const step = this.rows.length / sample;
      for (let i = 0; i < sample; i++) console.log(this.rows[Math.floor(i * step)]);
    }
  }
}
