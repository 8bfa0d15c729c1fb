// The machine-made-domain heuristic: conservative, zero false positives on the
// well-known list, and it catches generated labels. bench/safety-fp.ts measures the same rule
// on real pages' hosts and prints rates; this test holds the exact cases.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { domainLooksMachineMade, labelLooksMachineMade, labelShape, registrableLabel } from '../../src/safety/machine-made.js';
import { ENGLISH_BIGRAM_LOG2 } from '../../src/safety/data/english-bigrams.js';
import { seededLabels } from '../fixtures/safety/synthetic-labels.js';

const test = suite('machine-made domains');

test('every domain of the well-known list passes (bench/data/well-known-domains.txt)', () => {
  const file = fileURLToPath(new URL('../../bench/data/well-known-domains.txt', import.meta.url));
  const domains = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  assert.ok(domains.length > 1_000, `${domains.length} domains`);
  const flagged = domains.filter((d) => domainLooksMachineMade(d) || domainLooksMachineMade(`www.${d}`));
  assert.equal(flagged, []);
});

// Real names, met on real pages, that decided the thresholds (machine-made.ts).
for (const host of [
  'www.crnbccshowcase.com', // acronyms in a row: an 8-consonant run, vowel share 0.21
  'www.crncloud100showcase.com',
  'www.nbcnewsarchivesxpress.com',
  'www.sportsground.co.nz', // joined words: rtsgr
  'www.firstshowing.net',
  'www.wrightsreprints.com',
  'www.bbcglobalnews.com',
  'ca-times.brightspotcdn.com',
  'coronavirus.1point3acres.com', // digits between words
  'www.immobilienscout24.de',
  'polarcdn-terrax.com',
  'hdfcbank.com',
  '10jqka.com.cn',
]) {
  test(`a real name is not machine-made: ${host}`, () => {
    assert.not.ok(domainLooksMachineMade(host));
  });
}

for (const host of [
  'k3x9q2m7v8wz.com',
  'www.a8f3k2j9d7x1.net',
  'login.q7w2e9r4t1y6u3.co.uk',
  '3f9a1c7e5b2d8a4f.info', // a hash
  'qwzxkbtamnvprdls.ru', // letters only, unreadable: two long consonant runs, one vowel
  'zrqsfxnfoplqnvwt.org',
]) {
  test(`a generated name is machine-made: ${host}`, () => {
    assert.ok(domainLooksMachineMade(host));
  });
}

test('only the registrable label counts: a random subdomain of a real site is not flagged', () => {
  assert.is(registrableLabel('k3x9q2m7v8wz.example.com'), 'example');
  assert.not.ok(domainLooksMachineMade('k3x9q2m7v8wz.example.com'));
});

test('platform suffixes are not registrable: random CDN names are left alone', () => {
  assert.is(registrableLabel('d2v02itv0y9u9t.cloudfront.net'), 'cloudfront');
  assert.not.ok(domainLooksMachineMade('d2v02itv0y9u9t.cloudfront.net'));
  assert.not.ok(domainLooksMachineMade('wve3oiypgri4-a.akamaihd.net'));
});

// Names in languages whose letter pairs English seldom makes: the bigram rule's margin.
for (const host of [
  'szczebrzeszyn.pl', // mean bigram log2 -7.09, the lowest real name measured
  'chrzaszczbrzmiwtrzcinie.pl',
  'grzegorzbrzeczyszczykiewicz.pl',
  'wszystkoojezyku.pl',
  'przegladsportowy.pl',
  'muzykotekaszkolna.pl',
  'strcprstskrzkrk.cz', // Czech, no vowel at all: one consonant run
  'zmrzlinarstvi.cz',
  'krkonosskynarodnipark.cz',
  'llanfairpwllgwyngyll.co.uk',
  'helsinginsanomat.fi',
  'pflanzenfreunde.de',
  'zhongguancun.com',
  'sabahgazetesi.com.tr',
  'nguoiduatinviet.vn',
]) {
  test(`a non-English name is not machine-made: ${host}`, () => {
    assert.not.ok(domainLooksMachineMade(host));
  });
}

test('letters only: unreadable pairs are caught, readable ones are not', () => {
  assert.ok(labelLooksMachineMade('xkcdtrbnqwhzplmv'));
  assert.ok(labelShape('xkcdtrbnqwhzplmv').meanBigramLog2 <= -7.5);
  assert.ok(labelShape('medicalnewstoday').meanBigramLog2 > -5);
});

test('punycode labels, IP addresses and short labels are never judged', () => {
  assert.not.ok(labelLooksMachineMade('xn--80ak6aa92e'));
  assert.not.ok(domainLooksMachineMade('xn--80ak6aa92e.com'));
  assert.is(registrableLabel('192.0.2.1'), null);
  assert.not.ok(labelLooksMachineMade('k3x9q2m7v8w')); // 11 characters
});

test('labelShape counts what the rules read', () => {
  assert.equal(labelShape('k3x9-q2mb'), {
    length: 8,
    meanBigramLog2: ENGLISH_BIGRAM_LOG2[12 * 26 + 1], // the one letter pair: m, b
    pairs: 1,
    digits: 3,
    letters: 5,
    switches: 6,
    longestConsonantRun: 2,
    longRuns: 0,
    vowelShare: 0,
  });
});

test('seeded synthetic labels: most random base36 labels of 12-20 characters are caught', () => {
  const labels = seededLabels({ seed: 1, count: 2_000, alphabet: '0123456789abcdefghijklmnopqrstuvwxyz', min: 12, max: 20 });
  assert.is(labels.length, 2_000);
  assert.equal(seededLabels({ seed: 1, count: 3, alphabet: 'ab', min: 12, max: 12 }), seededLabels({ seed: 1, count: 3, alphabet: 'ab', min: 12, max: 12 }));
  const caught = labels.filter((label) => labelLooksMachineMade(label)).length;
  assert.ok(caught / labels.length > 0.8, `caught ${caught} of ${labels.length}`);
});

test.run();
