// suspicious_domain when the page is a domain-parking or domain-for-sale page (docs/SPEC.md
// SafetyTag: "Parked domain"). Only the head is read (RawTags: title, metas, links and
// the `<script src>` before `<body>`), so each marker below is something these services put in
// the head of every parked page. A marker is a service's own asset host or a phrase that only a
// for-sale page uses in its title; a word like "sale" alone never counts.

import { getDomain } from 'tldts';
import type { RawTags } from '../../wasm-parser/types.js';
import type { SafetyProvider } from './provider.js';

/**
 * A service's asset, matched against each `<script src>` and `<link href>`, lower-cased, as
 * written: by its `host` (or any subdomain of it, written absolute or protocol-relative,
 * `//img.host/...`), or by a `pattern` of the whole URL for an asset known by its path.
 */
type AssetMarker = { service: string; why: string } & ({ host: string } | { pattern: RegExp });

/** How every asset URL worth a look starts: absolute or protocol-relative. */
const ABSOLUTE = String.raw`^(?:https?:)?\/\/`;
const escaped = (host: string) => host.replace(/\./g, '\\.');
/** After ABSOLUTE: one of `hosts` or any subdomain of it, then the end of the authority. */
const onHosts = (hosts: readonly string[]) => String.raw`(?:[a-z0-9-]+\.)*(?:${hosts.map(escaped).join('|')})(?:[:/?#]|$)`;

const PARKING_ASSETS: readonly AssetMarker[] = [
  {
    service: 'Google AdSense for Domains',
    pattern: /^(?:https?:)?\/\/(?:www\.)?google\.com\/adsense\/domains\/caf\.js/,
    why: 'the ads framework of AdSense for Domains, a product for parked domains only; Sedo, Bodis, ParkingCrew, Above and GoDaddy landers load it',
  },
  {
    service: 'Google AdSense for Domains (legacy)',
    pattern: /\/apps\/domainpark\/show_afd_ads\.js/,
    why: 'the older AdSense-for-Domains script of parking pages',
  },
  {
    service: 'GoDaddy CashParking / Afternic',
    pattern: /^(?:https?:)?\/\/img\d*\.wsimg\.com\/parking-lander\//,
    why: "GoDaddy's parking lander bundle, shared by its parked and Afternic for-sale pages",
  },
  { service: 'Sedo', host: 'sedoparking.com', why: "Sedo's parking page assets (img.sedoparking.com)" },
  { service: 'ParkingCrew', host: 'parkingcrew.net', why: "ParkingCrew's parking page assets" },
  { service: 'Bodis', host: 'bodis.com', why: "Bodis' parking page assets" },
  { service: 'Above', host: 'above.com', why: "Above.com's parking page assets" },
  { service: 'Dan.com', host: 'dan.com', why: 'Dan.com for-sale lander assets (not jordan.com: the host must be dan.com)' },
  { service: 'Afternic', host: 'afternic.com', why: 'Afternic for-sale lander assets' },
  { service: 'HugeDomains', host: 'hugedomains.com', why: 'HugeDomains for-sale pages load and canonicalise to hugedomains.com' },
  { service: 'Namecheap', host: 'parkingpage.namecheap.com', why: "Namecheap's default parking page" },
];

/**
 * Phrases that for-sale and parked pages put in their title or description meta. Anchored on
 * "domain" so that a shop's "for sale" is not read as parking.
 */
const PARKING_PHRASES: readonly RegExp[] = [
  // "This domain is for sale", "The domain name example.com may be for sale" (Dan.com, Afternic, Sedo)
  /\b(?:this|the) domain(?: name)?(?: [a-z0-9.-]+\.[a-z]{2,})? (?:is|may be|might be) for sale\b/i,
  // "example.com is for sale" (HugeDomains, Dan.com, Afternic titles start with the name)
  /^\s*(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\s+(?:is|may be) for sale\b/i,
  /\b(?:buy|purchase|make an offer on) this domain\b/i,
  // "This web page is parked free, courtesy of GoDaddy", "This domain is parked"
  /\b(?:this (?:web ?page|domain|site)(?: name)? (?:is|has been) parked|parked free)\b/i,
];

/** Meta names whose content is read for the phrases: what shows as the page's own description. */
const DESCRIPTIVE_METAS: ReadonlySet<string> = new Set(['description', 'og:title', 'og:description', 'twitter:title', 'twitter:description']);

/**
 * The parking and marketplace services' own sites: their pages talk about domains for sale and
 * load their own assets without being parked.
 */
const PARKING_SERVICE_DOMAINS: ReadonlySet<string> = new Set([
  'sedo.com',
  'sedoparking.com',
  'bodis.com',
  'parkingcrew.net',
  'above.com',
  'dan.com',
  'afternic.com',
  'godaddy.com',
  'wsimg.com',
  'hugedomains.com',
  'namecheap.com',
]);

/** Each marker's test of one asset URL. */
const MATCHES: ReadonlyArray<readonly [AssetMarker, RegExp]> = PARKING_ASSETS.map((m) => [
  m,
  'host' in m ? new RegExp(ABSOLUTE + onHosts([m.host])) : m.pattern,
]);

/**
 * Every marker that starts with ABSOLUTE in one regex, anchored once, with the hosts' subdomain
 * prefix written once (repeated per host, every host would backtrack over it again); the markers
 * that may match anywhere in the URL beside it. Each `<script src>` and `<link href>` of a page is
 * tested against these, and the markers one by one only when one of them matched (pages carry up
 * to hundreds of each).
 */
const patterns = PARKING_ASSETS.flatMap((m) => ('pattern' in m ? [m.pattern] : []));
const absolutePaths = patterns.flatMap((p) => (p.source.startsWith(ABSOLUTE) ? [p.source.slice(ABSOLUTE.length)] : []));
const hosts = PARKING_ASSETS.flatMap((m) => ('host' in m ? [m.host] : []));
const ANY_ABSOLUTE_ASSET = new RegExp(`${ABSOLUTE}(?:${[...absolutePaths, onHosts(hosts)].join('|')})`);
const ANYWHERE: readonly RegExp[] = patterns.filter((p) => !p.source.startsWith(ABSOLUTE));

/** The first marker found (for logs and tests), or null. */
export function parkingMarker(host: string, tags: RawTags): string | null {
  const domain = getDomain(host);
  if (domain !== null && PARKING_SERVICE_DOMAINS.has(domain)) return null;
  const assets = [...tags.scriptSrcs, ...tags.links.map((link) => link.href)];
  for (const raw of assets) {
    const src = raw.trim().toLowerCase();
    if (!ANY_ABSOLUTE_ASSET.test(src) && !ANYWHERE.some((p) => p.test(src))) continue;
    const match = MATCHES.find(([, pattern]) => pattern.test(src));
    if (match) return `${match[0].service}: ${src}`;
  }
  const texts = [tags.title ?? ''];
  for (const meta of tags.metas) {
    const key = (meta.property ?? meta.name ?? '').trim().toLowerCase();
    if (DESCRIPTIVE_METAS.has(key) && meta.content) texts.push(meta.content);
  }
  for (const text of texts) {
    const phrase = PARKING_PHRASES.find((p) => p.test(text));
    if (phrase) return `phrase: ${text.trim().slice(0, 120)}`;
  }
  return null;
}

export const parkingPageProvider: SafetyProvider = {
  name: 'parking-page',
  check: ({ url, tags }) => (tags !== null && parkingMarker(url.hostname, tags) !== null ? ['suspicious_domain'] : []),
};
