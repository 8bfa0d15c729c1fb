// The fields beyond docs/SPEC.md beside metascraper's rules for the same things (author, date,
// publisher, lang), page by page over the corpus: how often each side fills the field, and how
// often the two agree where both do. metascraper reads the whole document (body heuristics
// included: bylines, `time` elements, a logo's alt text, the title's suffix); we read the head.
// ACCURACY_FIELDS_SAMPLE=<n> also prints both sides' values for n pages picked evenly, for a
// spot check by hand.

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

interface Tally {
  ours: number;
  theirs: number;
  both: number;
  agree: number;
}

export class FieldsBesideMetascraper {
  private readonly scrape = metascraper([metascraperAuthor(), metascraperDate(), metascraperPublisher(), metascraperLang()]);
  private readonly tallies = new Map<string, Tally>(PAIRS.map((p) => [p.ours, { ours: 0, theirs: 0, both: 0, agree: 0 }]));
  private readonly rows: string[] = [];
  private pages = 0;

  /** Runs metascraper on `html` (the page decoded as our scanner decoded it) and counts both sides. */
  async add(name: string, html: string, url: URL, meta: Metadata): Promise<void> {
    // metascraper rejects a host without a TLD (readability's http://fakehost/).
    const theirUrl = url.hostname.includes('.') ? url.href : 'https://example.org/test/page.html';
    const theirs = (await this.scrape({ html, url: theirUrl })) as Record<string, unknown>;
    this.pages++;
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
      cells.push(`    ${pair.ours.padEnd(15)} ours ${JSON.stringify(ours)}  metascraper ${JSON.stringify(their)}`);
    }
    this.rows.push(`  ${name}\n${cells.join('\n')}`);
  }

  print(): void {
    const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
    const n = this.pages;
    console.log(`\nfields beyond SPEC.md beside metascraper 5.49 (same pages; filled = non-null):`);
    console.log(`  ${'field (ours / metascraper)'.padEnd(30)} ${'ours'.padStart(14)} ${'metascraper'.padStart(14)}   agree where both`);
    for (const pair of PAIRS) {
      const t = this.tallies.get(pair.ours)!;
      const label = `${pair.ours} / ${pair.theirs}`;
      console.log(
        `  ${label.padEnd(30)} ${`${t.ours} ${pct(t.ours, n)}`.padStart(14)} ${`${t.theirs} ${pct(t.theirs, n)}`.padStart(14)}   ${t.agree} / ${t.both} ${pct(t.agree, t.both)}`,
      );
    }
    const sample = Number(process.env.ACCURACY_FIELDS_SAMPLE ?? 0);
    if (sample > 0) {
      console.log(`\nspot-check sample (${sample} pages, evenly spaced):`);
      const step = this.rows.length / sample;
      for (let i = 0; i < sample; i++) console.log(this.rows[Math.floor(i * step)]);
    }
  }
}
