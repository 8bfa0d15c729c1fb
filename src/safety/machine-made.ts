// suspicious_domain when the registrable domain looks machine-made (docs/SPEC.md SafetyTag: "new
// high-entropy domain"). Domain-generation algorithms and throwaway spam registrations
// produce labels like `x7k2m9q4w8z3.com`; people choose words, brands and acronyms.
//
// Conservative on purpose (zero false positives on real pages' hosts and on the
// well-known list, bench/data/well-known-domains.txt; bench/safety-fp.ts measures both and the
// catch rate on random labels). Every threshold below was raised until real names stopped
// tripping it; the names that forced each one are in test/safety/machine-made.test.ts.

import { parse } from 'tldts';
import { ENGLISH_BIGRAM_LOG2 } from './data/english-bigrams.js';
import type { SafetyProvider } from './provider.js';

/** The thresholds, as data: each with the real names that decided it. */
const MACHINE_MADE_RULES = {
  /**
   * Shorter labels are left alone: short names are mostly acronyms and brands (zdf, hdfcbank,
   * 10jqka, 360buyimg), and a random 8-letter label is rare among generated ones.
   */
  minLength: 12,
  /**
   * Digits interleaved with letters: at least this many digits and this many switches between
   * letters and digits. `1point3acres` (2 digits, 3 switches) and `immobilienscout24` (1 switch)
   * are real; `k3x9q2m7v8wz` has 5 digits and 8 switches.
   */
  minDigits: 3,
  minSwitches: 4,
  /** ...among at least this many letters (a phone number or a year is not a name made by a machine). */
  minLetters: 3,
  /**
   * Letters that cannot be read aloud: a run of this many consonants (digits and hyphens end a
   * run; y counts as a vowel), a vowel share at most this, and at least two runs of four.
   * Joined words and acronyms make one long run each, never this little vowel:
   * `sportsground` (rtsgr), `crnbccshowcase` (crnbccsh, vowel share 0.21), `wrightsreprints`;
   * Polish `chrzaszczbrzmiwtrzcinie` has three runs of four or more at a vowel share of 0.22.
   */
  minConsonantRun: 6,
  maxVowelShare: 0.15,
  minLongRuns: 2,
  longRun: 4,
  /**
   * Letter pairs that English words seldom make (data/english-bigrams.ts): the mean log2
   * P(next | letter) over the label's letter pairs, at most this, over at least `minPairs` pairs.
   * Random letters average about -7.3; the lowest real names seen are Polish: `szczebrzeszyn`
   * -7.09, `chrzaszczbrzmiwtrzcinie` -6.84, `wszystkoojezyku` -6.74; English compounds stay
   * above -6.3 (`royalroadcdn` -6.25). -7.5 leaves 0.4 bits of margin below the Polish names.
   */
  maxMeanBigramLog2: -7.5,
  minPairs: 10,
} as const;

export interface LabelShape {
  length: number;
  /** Mean log2 probability of its letter pairs in English words; 0 when it has none. */
  meanBigramLog2: number;
  pairs: number;
  digits: number;
  letters: number;
  switches: number;
  longestConsonantRun: number;
  longRuns: number;
  vowelShare: number;
}

/** Counts the character classes of one label (a-z, 0-9 and hyphens only; punycode excluded). */
export function labelShape(label: string): LabelShape {
  const chars = label.replace(/-/g, '');
  let digits = 0;
  let vowels = 0;
  let switches = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const isDigit = c >= '0' && c <= '9';
    if (isDigit) digits++;
    else if ('aeiouy'.includes(c)) vowels++;
    if (i > 0) {
      const prev = chars[i - 1]!;
      if (isDigit !== (prev >= '0' && prev <= '9')) switches++;
    }
  }
  const runs = label
    .split(/[aeiouy0-9-]+/)
    .filter(Boolean)
    .map((run) => run.length);
  const letters = chars.length - digits;
  let pairs = 0;
  let sum = 0;
  for (const segment of label.split(/[^a-z]+/)) {
    for (let i = 1; i < segment.length; i++) {
      sum += ENGLISH_BIGRAM_LOG2[(segment.charCodeAt(i - 1) - 97) * 26 + segment.charCodeAt(i) - 97]!;
      pairs++;
    }
  }
  return {
    length: chars.length,
    meanBigramLog2: pairs === 0 ? 0 : sum / pairs,
    pairs,
    digits,
    letters,
    switches,
    longestConsonantRun: Math.max(0, ...runs),
    longRuns: runs.filter((run) => run >= MACHINE_MADE_RULES.longRun).length,
    vowelShare: letters === 0 ? 0 : vowels / letters,
  };
}

/** True when one domain label looks generated rather than chosen. */
export function labelLooksMachineMade(label: string): boolean {
  const rules = MACHINE_MADE_RULES;
  // Internationalised labels are punycode here; their ASCII form looks random by construction.
  if (!/^[a-z0-9-]+$/.test(label) || label.startsWith('xn--')) return false;
  const shape = labelShape(label);
  if (shape.length < rules.minLength) return false;
  if (shape.digits >= rules.minDigits && shape.letters >= rules.minLetters && shape.switches >= rules.minSwitches) {
    return true;
  }
  if (shape.longestConsonantRun >= rules.minConsonantRun && shape.vowelShare <= rules.maxVowelShare && shape.longRuns >= rules.minLongRuns) {
    return true;
  }
  return shape.pairs >= rules.minPairs && shape.meanBigramLog2 <= rules.maxMeanBigramLog2;
}

/**
 * The label a registrant chose: the registrable domain under the ICANN suffixes, without the
 * suffix (`bbc` for news.bbc.co.uk). Private suffixes (cloudfront.net, github.io) are not used:
 * those platforms hand out random names to legitimate customers (d2v02itv0y9u9t.cloudfront.net),
 * while a registrable domain is paid for one name at a time.
 */
export function registrableLabel(hostname: string): string | null {
  const parsed = parse(hostname, { allowPrivateDomains: false });
  if (parsed.isIp || parsed.domainWithoutSuffix === null || parsed.domainWithoutSuffix === '') return null;
  return parsed.domainWithoutSuffix.toLowerCase();
}

export function domainLooksMachineMade(hostname: string): boolean {
  const label = registrableLabel(hostname);
  return label !== null && labelLooksMachineMade(label);
}

export const machineMadeDomainProvider: SafetyProvider = {
  name: 'machine-made-domain',
  check: ({ url }) => (domainLooksMachineMade(url.hostname) ? ['suspicious_domain'] : []),
};
