// npx tsx bench/safety-fp.ts — false positives and catch rate of the safety heuristics.
//
// False positives (must be zero: a hard requirement, and this script exits 1
// otherwise) of the machine-made-domain rule on:
//   - every host of the shared corpus (../shared/corpus/manifest.json: original_url and host),
//   - the well-known domain list, bench/data/well-known-domains.txt (with and without www.).
// Reported but not required: the same rule on every host the corpus pages link to (ad, CDN and
// tracking hosts included), and the parking-page and adult self-label signals on every corpus
// page's head (the real head scanner; none of these pages is parked or adult).
// True-positive rate: seeded random labels (12-20 characters: base36, letters only, hex) under .com.
// Runs without the corpus too (a fresh clone has none): the corpus lines then say so.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'tldts';
import { scanHead } from '../wasm-parser/index.js';
import { domainLooksMachineMade } from '../src/safety/machine-made.js';
import { isIpLiteral } from '../src/ip-literal.js';
import { parkingMarker } from '../src/safety/parking.js';
import { labelsItselfAdult } from '../src/safety/self-label.js';
import { seededLabels } from '../test/fixtures/safety/synthetic-labels.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusDir = path.resolve(root, '..', 'shared', 'corpus');
const SEED = 42;
const SYNTHETIC_COUNT = 10_000;

interface ManifestEntry {
  file: string;
  original_url: string | null;
  host?: string | null;
}

const hostOf = (href: string | null | undefined): string | null => {
  if (!href) return null;
  return URL.parse(href)?.hostname ?? null;
};

function report(name: string, hosts: Iterable<string>): string[] {
  const all = [...new Set(hosts)];
  const flagged = all.filter((host) => domainLooksMachineMade(host) || isIpLiteral(new URL(`http://${host}/`).hostname));
  console.log(`${name}: ${flagged.length} false positives of ${all.length} hosts`);
  for (const host of flagged) console.log(`  flagged: ${host}`);
  return flagged;
}

let hardFailures = 0;

// 1. The corpus.
if (existsSync(path.join(corpusDir, 'manifest.json'))) {
  const manifest = JSON.parse(readFileSync(path.join(corpusDir, 'manifest.json'), 'utf8')) as ManifestEntry[];
  const hosts = manifest.flatMap((e) => [hostOf(e.original_url), e.host ?? null]).filter((h): h is string => h !== null);
  hardFailures += report('corpus hosts (manifest)', hosts).length;

  // Hosts the pages link to, kept when tldts knows their suffix (the scrape also finds file names).
  const linked = new Set<string>();
  let parked = 0;
  let adult = 0;
  for (const entry of manifest) {
    const bytes = readFileSync(path.join(corpusDir, entry.file));
    for (const m of bytes.toString('latin1').matchAll(/(?:https?:)?\/\/([a-z0-9.-]+\.[a-z]{2,})(?=[/"'?:#\s)])/gi)) {
      const host = m[1]!.toLowerCase();
      if (parse(host).isIcann) linked.add(host);
    }
    const { tags } = await scanHead(bytes);
    const pageHost = hostOf(entry.original_url) ?? 'corpus.invalid';
    const marker = parkingMarker(pageHost, tags);
    if (marker) {
      parked++;
      console.log(`  parking marker on ${entry.file}: ${marker}`);
    }
    if (labelsItselfAdult(tags)) {
      adult++;
      console.log(`  adult self-label on ${entry.file}`);
    }
  }
  report('hosts linked from corpus pages (informative)', linked);
  console.log(`corpus pages read as parked: ${parked} of ${manifest.length}`);
  console.log(`corpus pages labelled adult: ${adult} of ${manifest.length}`);
  hardFailures += parked + adult;
} else {
  console.log(`corpus: not found at ${corpusDir}; corpus false positives not measured`);
}

// 2. The well-known list.
const wellKnown = readFileSync(path.join(root, 'bench/data/well-known-domains.txt'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
hardFailures += report('well-known domains', [...wellKnown, ...wellKnown.map((d) => `www.${d}`)]).length;

// 3. Synthetic machine-made names.
const alphabets = {
  'base36 (a-z0-9)': '0123456789abcdefghijklmnopqrstuvwxyz',
  'letters only (a-z)': 'abcdefghijklmnopqrstuvwxyz',
  'hex (0-9a-f)': '0123456789abcdef',
};
for (const [name, alphabet] of Object.entries(alphabets)) {
  const labels = seededLabels({ seed: SEED, count: SYNTHETIC_COUNT, alphabet, min: 12, max: 20 });
  const caught = labels.filter((label) => domainLooksMachineMade(`${label}.com`)).length;
  const rate = ((100 * caught) / labels.length).toFixed(1);
  console.log(`synthetic ${name}, 12-20 chars, seed ${SEED}: caught ${caught} of ${labels.length} (${rate}%)`);
}

console.log(hardFailures === 0 ? 'zero false positives where required' : `${hardFailures} false positives where zero is required`);
process.exit(hardFailures === 0 ? 0 : 1);
