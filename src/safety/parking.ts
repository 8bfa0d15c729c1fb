// suspicious_domain when the page is a domain-parking or domain-for-sale page (docs/SPEC.md
// SafetyTag: "Parked domain"). Only the head is read (RawTags: title, metas, links and
// the `<script src>` before `<body>`), so each marker below is something these services put in
// the head of every parked page. A marker is a service's own asset host or a phrase that only a
// for-sale page uses in its title; a word like "sale" alone never counts.

import { getDomain } from 'tldts';
import type { RawTags } from '../../wasm-parser/types.js';
import type { SafetyProvider } from './provider.js';

interface AssetMarker {
  service: string;
  /** Matched against each `<script src>` and `<link href>`, lower-cased, as written. */
  pattern: RegExp;
  why: string;
}

/** `host` or any subdomain of it, written absolute or protocol-relative (`//img.host/...`). */
const onHost = (host: string) => new RegExp(`^(?:https?:)?//(?:[a-z0-9-]+\\.)*${host.replace(/\./g, '\\.')}(?:[:/?#]|$)`);

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
  { service: 'Sedo', pattern: onHost('sedoparking.com'), why: "Sedo's parking page assets (img.sedoparking.com)" },
  { service: 'ParkingCrew', pattern: onHost('parkingcrew.net'), why: "ParkingCrew's parking page assets" },
  { service: 'Bodis', pattern: onHost('bodis.com'), why: "Bodis' parking page assets" },
  { service: 'Above', pattern: onHost('above.com'), why: "Above.com's parking page assets" },
  { service: 'Dan.com', pattern: onHost('dan.com'), why: 'Dan.com for-sale lander assets (not jordan.com: the host must be dan.com)' },
  { service: 'Afternic', pattern: onHost('afternic.com'), why: 'Afternic for-sale lander assets' },
  { service: 'HugeDomains', pattern: onHost('hugedomains.com'), why: 'HugeDomains for-sale pages load and canonicalise to hugedomains.com' },
  { service: 'Namecheap', pattern: onHost('parkingpage.namecheap.com'), why: "Namecheap's default parking page" },
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

/**
 * Every asset pattern in one alternation: each `<script src>` and `<link href>` of a page is
 * tested once, and the list only when one of them matched (pages carry up to hundreds of each).
 */
const ANY_PARKING_ASSET = new RegExp(PARKING_ASSETS.map((m) => `(?:${m.pattern.source})`).join('|'));

/** The first marker found (for logs and tests), or null. */
export function parkingMarker(host: string, tags: RawTags): string | null {
  const domain = getDomain(host);
  if (domain !== null && PARKING_SERVICE_DOMAINS.has(domain)) return null;
  const assets = [...tags.scriptSrcs, ...tags.links.map((link) => link.href)];
  for (const raw of assets) {
    const src = raw.trim().toLowerCase();
    if (!ANY_PARKING_ASSET.test(src)) continue;
    const marker = PARKING_ASSETS.find((m) => m.pattern.test(src));
    if (marker) return `${marker.service}: ${src}`;
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
