// npx tsx bench/bot-checks.ts (npm run bench:bot-checks) — false positives of the bot-check and
// consent-wall detector (src/walls) on the shared corpus: no real page may be taken for a wall.
//
// Every corpus page (../shared/corpus) is read through the real head scanner, with the charset its
// manifest declares, and judged as the service judges a 200 answer:
//   1. as saved: status 200, the headers its manifest records (it records none), its original URL;
//   2. as if served through each vendor's edge with the headers its normal pages carry
//      (Server: cloudflare, Server: AkamaiGHost, X-DataDome: protected, X-Iinfo...), the case where
//      a title or script marker meets the header it is paired with;
//   3. as if a redirect had led to its URL (a consent or login page is only one when reached so).
// Writes bench/results/bot-checks.md. Exits 1 on any page taken for a wall: the target is zero.
// Runs without the corpus too (a fresh clone has none) and says so.

import { mediaTypeCharset } from '../src/media-type.js';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scanHead } from '../wasm-parser/index.js';
import { findBotCheck, findConsentWall } from '../src/walls/detect.js';
import { BOT_CHECK_MARKERS, CONSENT_PAGES } from '../src/walls/markers.js';
import { CORPUS_DIR, REPO_ROOT, corpusPresent } from './lib/corpus.js';

interface ManifestEntry {
  file: string;
  original_url: string | null;
  charset_declared: string | null;
  /** Response headers, where a source saved them (none of the corpus's sources did). */
  headers?: Record<string, string>;
}

/** What a normal page behind each service is served with (markers.ts lists them as non-markers). */
const EDGES: Record<string, Record<string, string>> = {
  'plain (no headers)': {},
  Cloudflare: { server: 'cloudflare', 'cf-ray': '8f3e2b1c4a9d1234-LHR' },
  Akamai: { server: 'AkamaiGHost', 'akamai-grn': '0.1a2b3c4d.1727400000.1a2b3c4d' },
  DataDome: { 'x-datadome': 'protected' },
  Imperva: { 'x-cdn': 'Imperva', 'x-iinfo': '10-1234 NNNN CT(0 0 0) RT(1727400000000 0)' },
};

/**
 * Strings a detector reading the whole page would take for a challenge, counted for comparison:
 * real pages carry them (Cloudflare's JavaScript Detections, vendors' names in page config, words
 * in the text), which is why the markers are read from headers and head tags instead.
 */
const NAIVE_STRINGS = [
  '/cdn-cgi/challenge-platform/',
  'just a moment',
  'access denied',
  'attention required',
  'perimeterx',
  'datadome',
  'captcha-delivery',
  '_incapsula_resource',
  'awswaf',
];

const out: string[] = [];
const say = (line = '') => {
  console.log(line);
  out.push(line);
};
const resultsFile = path.join(REPO_ROOT, 'bench/results/bot-checks.md');

if (!corpusPresent()) {
  console.log(`corpus: not found at ${CORPUS_DIR}; nothing measured`);
  process.exit(0);
}

const manifest = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'manifest.json'), 'utf8')) as ManifestEntry[];
const flagged: string[] = [];
const perEdge = new Map<string, number>(Object.keys(EDGES).map((edge) => [edge, 0]));
let withHeaders = 0;
let walls = 0;
let scanned = 0;
const naive = new Map<string, string[]>(NAIVE_STRINGS.map((needle) => [needle, []]));

for (const entry of manifest) {
  const bytes = readFileSync(path.join(CORPUS_DIR, entry.file));
  const contentType = entry.charset_declared ? `text/html; charset=${entry.charset_declared}` : 'text/html';
  const { tags } = await scanHead(bytes, { httpCharset: mediaTypeCharset(contentType) });
  scanned++;
  const text = bytes.toString('latin1').toLowerCase();
  for (const needle of NAIVE_STRINGS) if (text.includes(needle)) naive.get(needle)!.push(path.basename(entry.file));
  const url = URL.parse(entry.original_url ?? '') ?? new URL(`https://corpus.invalid/${path.basename(entry.file)}`);

  if (entry.headers) withHeaders++;
  const asSaved = findBotCheck({ status: 200, headers: lowerCased(entry.headers ?? {}), url, tags });
  if (asSaved) flagged.push(`${entry.file}: as saved, ${asSaved.service} (${asSaved.what})`);
  for (const [edge, headers] of Object.entries(EDGES)) {
    const marker = findBotCheck({ status: 200, headers, url, tags });
    if (!marker) continue;
    perEdge.set(edge, perEdge.get(edge)! + 1);
    flagged.push(`${entry.file}: served as ${edge}, ${marker.service} (${marker.what})`);
  }
  const consent = findConsentWall(new URL('https://redirected-from.invalid/'), url);
  if (consent) {
    walls++;
    flagged.push(`${entry.file}: its URL ${url.href} is a ${consent.page} page when reached by a redirect`);
  }
}

say('# Bot checks and consent walls on the corpus');
say();
say(`\`npm run bench:bot-checks\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}.`);
say(`Detector: ${BOT_CHECK_MARKERS.length} bot-check markers, ${CONSENT_PAGES.length} consent and login pages (src/walls/markers.ts).`);
say(`Corpus: ${scanned} pages (../shared/corpus), each through the real head scanner; ${withHeaders} with saved response headers.`);
say();
say('| judged as | pages taken for a bot check |');
say('| --- | --- |');
say(`| as saved (status 200, the manifest's headers) | ${flagged.filter((f) => f.includes(': as saved,')).length} of ${scanned} |`);
for (const [edge, count] of perEdge) say(`| status 200 served through ${edge} | ${count} of ${scanned} |`);
say(`| consent or login page if reached by a redirect | ${walls} of ${scanned} |`);
say();
say('For comparison, pages whose bytes anywhere contain a string a whole-page detector might use (none of them is a challenge):');
say();
say('| string | pages | examples |');
say('| --- | --- | --- |');
for (const [needle, pages] of naive) say(`| \`${needle}\` | ${pages.length} | ${pages.slice(0, 3).join(', ')} |`);
say();
if (flagged.length === 0) {
  say('Zero false positives: no corpus page is a challenge page, and none is taken for one.');
} else {
  say('Pages taken for a wall:');
  for (const line of flagged) say(`- ${line}`);
}
writeFileSync(resultsFile, `${out.join('\n')}\n`);
console.log(`\nwritten to ${path.relative(REPO_ROOT, resultsFile)}`);
process.exit(flagged.length === 0 ? 0 : 1);

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
