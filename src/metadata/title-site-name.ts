// The site's name read from the `<title>`: the last source of `site_name` (extra-rules.ts), for
// pages whose head names the site nowhere else. Titles often end (or start) with the site's name
// after a separator ("Bob Dylan - Wikipedia", "LeanData | The Winds of Change"), but also with a
// section, a byline or a piece of the headline ("… - by Simon Sarris", "Indie Hackers | episode
// title" on a podcast host). metascraper reads the title's suffix too, without checking it
// against anything, and so gives a headline fragment or an author as the publisher. Here the
// outermost segment counts only when its letters spell the page's host (its registrable domain's
// label): "Wikipedia" on en.wikipedia.org, "Salon.com" on www.salon.com, "PLOS One" on
// journals.plos.org. A wrong site name is worse than none, so every doubt (no separator, an IP or
// IDN host, a label or segment too short to tell, a segment that only shares a few letters with
// the host) is null.

import { getDomainWithoutSuffix } from 'tldts';

/**
 * Separators between a title's parts, each with a space on both sides (a hyphen inside a word,
 * "Node.js: the Right Way" or "10:30" are not separators). Real titles use all of them,
 * " - " and " | " most; " / " and " : " appear too, but inside headlines
 * (bench/results/page-shapes.md).
 */
const SEPARATORS = [' | ', ' - ', ' – ', ' — ', ' · ', ' • ', ' :: '];

/** The marks of SEPARATORS: a segment may not start or end with one. */
const SEPARATOR_MARKS = new Set(SEPARATORS.map((s) => s.trim()).join(''));

/**
 * A longer `<title>` is not looked at: real ones stay near half of it
 * (bench/results/page-shapes.md), and the scanner keeps up to 64 KiB of a hostile one. Checked before any other work, in UTF-16 units.
 */
export const TITLE_SITE_MAX = 500;

/** Shortest key that may match by containment: shorter ones ("bbc", "ft") must match whole. */
const MIN_CONTAINED = 4;

/** Runs of what is neither a letter nor a digit: they separate a segment's words. */
const NOT_ALNUM = /[^\p{L}\p{N}]+/u;
/** A domain-style ending ("Salon.com", "Newegg.com", "Amazon.co.uk"): dropped before comparing. */
const DOMAIN_ENDING = /\.[a-z]{2,6}(?:\.[a-z]{2})?$/i;
/** A dot inside a word: what is left of a segment after its domain ending is a host name. */
const INNER_DOT = /[\p{L}\p{N}]\.[\p{L}\p{N}]/u;
/** Whitespace runs, as normalizeText collapses them. */
const WHITESPACE = /\s+/g;
/** The label of a registrable domain that can be compared: ASCII letters, digits and hyphens, not punycode. */
const PLAIN_LABEL = /^[a-z0-9-]+$/;

/**
 * The title's last segment, else its first, when it names the site of `pageUrl`; null otherwise.
 * The segment is returned as the title writes it (site_name's normaliser then trims it).
 */
export function siteNameFromTitle(title: string | null, pageUrl: URL | null): string | null {
  if (title === null || pageUrl === null || title.length > TITLE_SITE_MAX) return null;
  const text = title.replace(WHITESPACE, ' ').trim();
  // Where the first separator starts and where the last one ends: indexOf, no regular expression.
  let first = -1;
  let lastEnd = -1;
  for (const separator of SEPARATORS) {
    const at = text.indexOf(separator);
    if (at === -1) continue;
    if (first === -1 || at < first) first = at;
    lastEnd = Math.max(lastEnd, text.lastIndexOf(separator) + separator.length);
  }
  if (first === -1) return null;
  const label = hostLabel(pageUrl);
  if (label === null) return null;
  const tail = text.slice(lastEnd);
  if (namesHost(tail, label, true)) return tail;
  // A title's first part is most often the headline, or a product or section of the site
  // ("Transistor Embed | episode title" on share.transistor.fm): there the segment may not say more
  // than the host's name.
  const head = text.slice(0, first);
  return namesHost(head, label, false) ? head : null;
}

/**
 * The registrable domain's label with its hyphens dropped (`android-developers.googleblog.com` →
 * `googleblog`; on a shared host such as github.io or blogspot.com, the user's own label, so a
 * page on someone.github.io titled "Sign in · GitHub" does not get "GitHub"). Null for an IP
 * address, a single-label host, and an IDN (its punycode label spells nothing a title shows).
 */
function hostLabel(pageUrl: URL): string | null {
  // A URL's hostname is already extracted and valid (WHATWG URL): tldts need not do either again.
  const label = getDomainWithoutSuffix(pageUrl.hostname, { allowPrivateDomains: true, extractHostname: false, validateHostname: false });
  if (!label || label.startsWith('xn--') || !PLAIN_LABEL.test(label)) return null;
  const key = label.replaceAll('-', '');
  return key === '' ? null : key;
}

/**
 * Whether `segment` spells `label`: its letters and digits, lower-cased, without a leading "The"
 * and a domain ending, equal the label; or the shorter of the two (at least MIN_CONTAINED
 * characters, and more than half the longer) starts or ends the longer, at a word boundary of
 * the segment ("PLOS One" for `plos`, "LeanData" for `leandatainc`, "The Rams" for `therams`).
 * Only with `mayAddWords` may the segment be the longer one. A segment that starts or ends with a
 * separator's mark ("PIXNET ::" after a title's trailing " ::") is not a clean name, and one that
 * is another host name ("wikipedia.example.com": a dot left inside a word once the ending is
 * dropped) is not the page's.
 */
function namesHost(segment: string, label: string, mayAddWords: boolean): boolean {
  if (segment === '' || SEPARATOR_MARKS.has(segment[0]!) || SEPARATOR_MARKS.has(segment[segment.length - 1]!)) return false;
  const name = segment.replace(DOMAIN_ENDING, '');
  if (!name.includes(' ') && INNER_DOT.test(name)) return false;
  const words = name
    .toLowerCase()
    .split(NOT_ALNUM)
    .filter((w) => w !== '');
  if (words[0] === 'the' && words.length > 1) words.shift();
  const key = words.join('');
  if (key === label) return true;
  const [shorter, longer] = key.length < label.length ? [key, label] : [label, key];
  if (shorter.length < MIN_CONTAINED || shorter.length * 2 <= longer.length) return false;
  if (shorter === label) {
    if (!mayAddWords) return false;
    // The label inside the segment: it must be whole words at the segment's start or end.
    const ends = new Set<number>([0]);
    let at = 0;
    for (const word of words) ends.add((at += word.length));
    return (key.startsWith(label) && ends.has(label.length)) || (key.endsWith(label) && ends.has(key.length - label.length));
  }
  return label.startsWith(key) || label.endsWith(key);
}
