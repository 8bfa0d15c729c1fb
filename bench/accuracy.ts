// npm run accuracy — scans every page of the shared corpus (../shared/corpus, beside the repo) and
// prints per-field coverage, agreement with what the peers' own test suites expect
// (corpus/expected), every disagreement, the readability check (no U+FFFD, no mojibake in title
// or description), how many pages carry og:/twitter: tags after `<body>`, and the fields beyond
// SPEC.md beside metascraper's rules for them (lib/fields-peers.ts).
// The peers' expectations are other libraries' rules, not our spec: a sanity signal only.
// Skips with a message when the corpus is absent (a fresh clone has none).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTMLRewriter } from 'html-rewriter-wasm';
import iconv from 'iconv-lite';
import { scanHead } from '../wasm-parser/index.js';
import type { ScanResult } from '../wasm-parser/types.js';
import { extractMetadata } from '../src/metadata/extract.js';
import type { Metadata } from '../generated/types.gen.js';
import { FieldsBesideMetascraper } from './lib/fields-peers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusDir = path.resolve(root, '..', 'shared', 'corpus');

interface ManifestEntry {
  file: string;
  source_repo: string;
  original_url: string | null;
  hosted_url?: string;
  charset_declared: string | null;
  valid_utf8: boolean;
  charset_mismatch: boolean;
  expected_file: string | null;
}

type Json = Record<string, unknown>;

/** The URL the page was fetched from in the peer's test, so their resolved URLs compare. */
function pageUrlOf(entry: ManifestEntry, expected: Json | null): URL {
  const test = (expected?.tests as Json[] | undefined)?.[0];
  const candidates = [
    test?.input_url as string | undefined,
    (test?.options as Json | undefined)?.url as string | undefined,
    entry.source_repo === 'jacktuck/unfurl' ? 'http://localhost/' : undefined,
    entry.original_url ?? undefined,
    entry.hosted_url,
    'http://fakehost/test/page.html', // readability's own test harness URL
  ];
  for (const c of candidates) if (c) return new URL(c);
  throw new Error('unreachable');
}

/** Network-like delivery: 16 KiB chunks, as the fetcher's decoder hands them out. */
async function* chunks(bytes: Uint8Array, size = 16 * 1024): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function sameText(ours: unknown, theirs: unknown): boolean {
  return typeof ours === 'string' && typeof theirs === 'string' && squash(ours) === squash(theirs);
}

function sameUrl(ours: unknown, theirs: unknown, base: URL): boolean {
  if (typeof ours !== 'string' || typeof theirs !== 'string') return false;
  try {
    return new URL(ours, base).href === new URL(theirs.trim(), base).href;
  } catch {
    return false;
  }
}

interface Comparison {
  field: string;
  peer: string;
  ours: unknown;
  theirs: unknown;
  kind: 'text' | 'url';
}

/** What to compare on one page: our field beside the peer's name for it. */
function comparisons(repo: string, expected: Json, meta: Metadata, scan: ScanResult): Comparison[] {
  const out: Comparison[] = [];
  const add = (field: string, peer: string, ours: unknown, theirs: unknown, kind: 'text' | 'url' = 'text') => {
    if (theirs === undefined || theirs === null || theirs === '') return;
    out.push({ field, peer, ours, theirs, kind });
  };
  if (repo === 'mozilla/readability') {
    add('title', 'readability.title', meta.title, expected.title);
    add('description', 'readability.excerpt', meta.description, expected.excerpt);
    add('og:site_name', 'readability.siteName', meta.og['og:site_name'], expected.siteName);
    add('lang (scanner)', 'readability.lang', scan.tags.lang, expected.lang);
    return out;
  }
  for (const test of (expected.tests as Json[]) ?? []) {
    const e = test.expected as Json | undefined;
    if (!e) continue;
    if (repo === 'microlinkhq/metascraper') {
      add('title', 'metascraper.title', meta.title, e.title);
      add('description', 'metascraper.description', meta.description, e.description);
      add('image', 'metascraper.image', meta.image.url, e.image, 'url');
      add('url', 'metascraper.url', meta.url, e.url, 'url');
      add('favicon', 'metascraper.logo', meta.favicon.url, e.logo, 'url');
    } else if (repo.startsWith('jshemas/')) {
      // ogs falls back to <title>, <meta name=description> and <html lang> for these: compare fields.
      add('title', 'ogs.ogTitle', meta.title, e.ogTitle);
      add('description', 'ogs.ogDescription', meta.description, e.ogDescription);
      add('og:type', 'ogs.ogType', meta.og['og:type'], e.ogType);
      add('og:url', 'ogs.ogUrl', meta.og['og:url'], e.ogUrl);
      add('og:site_name', 'ogs.ogSiteName', meta.og['og:site_name'], e.ogSiteName);
      add('og:locale or lang', 'ogs.ogLocale', meta.og['og:locale'] ?? scan.tags.lang, e.ogLocale);
      add('twitter:card', 'ogs.twitterCard', meta.twitter['twitter:card'], e.twitterCard);
      add('twitter:title', 'ogs.twitterTitle', meta.twitter['twitter:title'], e.twitterTitle);
      add('twitter:description', 'ogs.twitterDescription', meta.twitter['twitter:description'], e.twitterDescription);
      add('twitter:site', 'ogs.twitterSite', meta.twitter['twitter:site'], e.twitterSite);
      const ogImage = (e.ogImage as Json[] | undefined)?.[0]?.url;
      add('image', 'ogs.ogImage[0]', meta.image.url, ogImage, 'url');
      add('favicon', 'ogs.favicon', meta.favicon.url, e.favicon, 'url');
    } else if (repo === 'jacktuck/unfurl') {
      add('title', 'unfurl.title', meta.title, e.title);
      add('description', 'unfurl.description', meta.description, e.description);
      add('favicon', 'unfurl.favicon', meta.favicon.url, e.favicon, 'url');
    }
  }
  return out;
}

/** Text that was UTF-8 read as windows-1252 / latin-1: re-encoding it gives valid multi-byte UTF-8. */
function looksLikeMojibake(text: string): boolean {
  if (!/[\u00c0-\u00ff][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2122]/.test(text)) return false;
  const bytes = iconv.encode(text, 'windows-1252');
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return !decoded.includes('\ufffd') && decoded !== text;
}

/** og:/twitter: meta tags after the first `<body>` start tag, from a whole-document pass. */
async function tagsAfterBody(bytes: Uint8Array): Promise<{ keys: string[]; hasBody: boolean; titleAfterBody: boolean }> {
  let inBody = false;
  let titleAfterBody = false;
  const keys: string[] = [];
  const rewriter = new HTMLRewriter(() => {});
  rewriter.on('body', { element: () => void (inBody = true) });
  rewriter.on('title', { element: () => void (titleAfterBody ||= inBody) });
  rewriter.on('meta', {
    element: (e) => {
      if (!inBody) return;
      const key = (e.getAttribute('property') ?? e.getAttribute('name') ?? '').trim().toLowerCase();
      if (key.startsWith('og:') || key.startsWith('twitter:')) keys.push(key);
    },
  });
  try {
    await rewriter.write(bytes);
    await rewriter.end();
  } finally {
    rewriter.free();
  }
  return { keys, hasBody: inBody, titleAfterBody };
}

async function main(): Promise<void> {
  if (!existsSync(path.join(corpusDir, 'manifest.json'))) {
    console.log(`accuracy: no corpus at ${corpusDir}; skipped.`);
    return;
  }
  const manifest = JSON.parse(readFileSync(path.join(corpusDir, 'manifest.json'), 'utf8')) as ManifestEntry[];
  const coverage: Record<string, number> = {};
  const count = (field: string, present: boolean) => void (coverage[field] = (coverage[field] ?? 0) + (present ? 1 : 0));
  const agreement = new Map<string, { agree: number; total: number }>();
  const disagreements: string[] = [];
  const unreadable: string[] = [];
  const charsetRows: string[] = [];
  let afterBodyPages = 0;
  let afterBodyLost = 0;
  let afterBodyTags = 0;
  let pagesWithBody = 0;
  const lostExamples: string[] = [];
  const titleOnlyAfterBody: string[] = [];
  const fields = new FieldsBesideMetascraper();

  for (const entry of manifest) {
    const bytes = new Uint8Array(readFileSync(path.join(corpusDir, entry.file)));
    const expected = entry.expected_file ? (JSON.parse(readFileSync(path.join(corpusDir, entry.expected_file), 'utf8')) as Json) : null;
    const pageUrl = pageUrlOf(entry, expected);
    const scan = await scanHead(chunks(bytes));
    const meta = extractMetadata(scan.tags, 'og', pageUrl);
    const name = path.basename(entry.file, '.html');

    count('title', meta.title != null);
    count('description', meta.description != null);
    count('url from a tag', meta.url !== pageUrl.href);
    count('image', meta.image.url != null);
    count('image type/width/height from tags', meta.image.width != null || meta.image.type != null);
    count('type', meta.type != null);
    count('favicon from a <link>', meta.favicon.url !== new URL('/favicon.ico', pageUrl.origin).href);
    count('og (any key)', Object.keys(meta.og).length > 0);
    count('twitter (any key)', Object.keys(meta.twitter).length > 0);
    count('stopped at <body>', scan.stoppedAtBody);
    for (const field of ['site_name', 'lang', 'author', 'published_time', 'theme_color'] as const) count(field, meta[field] != null);
    await fields.add(name, new TextDecoder(scan.charset).decode(bytes), pageUrl, meta);

    for (const [label, text] of [
      ['title', meta.title],
      ['description', meta.description],
    ] as const) {
      if (text == null) continue;
      if (text.includes('\ufffd')) unreadable.push(`${name} ${label} has U+FFFD: ${text.slice(0, 80)}`);
      else if (looksLikeMojibake(text)) unreadable.push(`${name} ${label} looks like mojibake: ${text.slice(0, 80)}`);
    }
    if (!entry.valid_utf8 || entry.charset_mismatch) {
      // Served with the declared charset in the HTTP header too: the result must not change.
      const withHeader = await scanHead(chunks(bytes), { httpCharset: entry.charset_declared });
      const same = JSON.stringify(withHeader.tags) === JSON.stringify(scan.tags) && withHeader.charset === scan.charset;
      if (!same) unreadable.push(`${name} reads differently when the HTTP header declares ${entry.charset_declared}`);
      charsetRows.push(
        `  ${name.padEnd(34)} declared ${String(entry.charset_declared).padEnd(12)} ${entry.valid_utf8 ? 'stored utf-8    ' : 'stored non-utf-8'} → ${scan.charset.padEnd(9)}` +
          ` ${same ? 'same' : 'DIFFERENT'} with the HTTP header  title: ${String(meta.title).slice(0, 40)}`,
      );
    }

    if (expected !== null) {
      fields.expect(entry.source_repo, name, expected, meta);
      for (const c of comparisons(entry.source_repo, expected, meta, scan)) {
        const same = c.kind === 'url' ? sameUrl(c.ours, c.theirs, pageUrl) : sameText(c.ours, c.theirs);
        const key = `${c.field.padEnd(20)} vs ${c.peer}`;
        const row = agreement.get(key) ?? { agree: 0, total: 0 };
        row.total++;
        if (same) row.agree++;
        agreement.set(key, row);
        if (!same) {
          const show = (v: unknown) => JSON.stringify(typeof v === 'string' ? squash(v).slice(0, 90) : v);
          disagreements.push(`  ${name} [${c.field} vs ${c.peer}]\n      ours:   ${show(c.ours)}\n      theirs: ${show(c.theirs)}`);
        }
      }
    }

    const after = await tagsAfterBody(bytes);
    if (after.hasBody) pagesWithBody++;
    if (after.titleAfterBody && scan.tags.title === null) titleOnlyAfterBody.push(name);
    if (after.keys.length > 0) {
      afterBodyPages++;
      afterBodyTags += after.keys.length;
      const lost = [...new Set(after.keys)].filter((k) => !(k in meta.og) && !(k in meta.twitter));
      if (lost.length > 0) {
        afterBodyLost++;
        lostExamples.push(`  ${name}: ${lost.slice(0, 6).join(', ')}${lost.length > 6 ? ', …' : ''}`);
      }
    }
  }

  const n = manifest.length;
  const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
  console.log(`accuracy over ${n} corpus pages (${corpusDir})\n`);
  console.log('coverage (pages where the field is filled):');
  for (const [field, c] of Object.entries(coverage)) console.log(`  ${field.padEnd(36)} ${String(c).padStart(4)} / ${n}  ${pct(c, n)}`);
  console.log("\nagreement with the peers' expectations (their rules, a sanity signal):");
  let agreeAll = 0;
  let totalAll = 0;
  for (const [key, { agree, total }] of [...agreement].sort()) {
    agreeAll += agree;
    totalAll += total;
    console.log(`  ${key.padEnd(52)} ${String(agree).padStart(4)} / ${String(total).padEnd(4)} ${pct(agree, total)}`);
  }
  console.log(`  ${'all comparisons'.padEnd(52)} ${String(agreeAll).padStart(4)} / ${String(totalAll).padEnd(4)} ${pct(agreeAll, totalAll)}`);
  console.log('\nreadability: title and description with U+FFFD or mojibake:', unreadable.length === 0 ? 'none' : '');
  for (const line of unreadable) console.log(`  ${line}`);
  console.log('\nnon-UTF-8 and charset_mismatch pages:');
  for (const line of charsetRows) console.log(line);
  console.log(
    `\nog:/twitter: tags after <body>: ${afterBodyPages} of ${n} pages (${pagesWithBody} have a <body> tag) carry ${afterBodyTags} such tags;` +
      ` on ${afterBodyLost} pages a key exists only after <body> (missed by design):`,
  );
  for (const line of lostExamples) console.log(line);
  console.log(`pages whose only <title> comes after <body> (no HTML title by design): ${titleOnlyAfterBody.length}: ${titleOnlyAfterBody.join(', ')}`);
  fields.print();
  console.log(`\ndisagreements (${disagreements.length}):`);
  for (const line of disagreements) console.log(line);
}

await main();
