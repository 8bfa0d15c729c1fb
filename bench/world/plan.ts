// The benchmark world, as data: which host names exist, where each listens, how far away it is,
// and what each page and image URL is. Built from the corpus: every page under its original URL
// (the manifest's `original_url`; one made-up host per page where it is unknown), and every image
// and icon URL the service would probe on it (found by LinkPeek's own scanner and rules, so the
// world serves exactly what the service asks for) on a host of its own. Plus the hosts the
// scenarios need: names whose nameserver never answers, a page whose image host is such a name,
// and six hosts for counting queries.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mediaTypeCharset } from '../../src/media-type.js';
import { extractBoth } from '../../src/metadata/extract.js';
import { scanHead } from '../../wasm-parser/index.js';
import type { HostProtocol } from '../../test/world/hosts.js';
import { CORPUS_DIR, loadManifest, readPage } from '../lib/corpus.js';

export interface HostPlan {
  name: string;
  address: string;
  /** One round trip, 20–60 ms, fixed per host (derived from its name). */
  latencyMs: number;
  listeners: { port: number; protocol: HostProtocol }[];
}

export interface PagePlan {
  /** Corpus file name, or the synthetic page's name. */
  file: string;
  contentType: string;
  /** The URL a client asks for (a benchmark adds `_w=<n>` to make it new). */
  url: string;
  /** Image and icon URLs the service probes on this page (distinct). */
  imageUrls: string[];
  /** The slowest of those URLs' hosts, ms (0 without any). */
  imageLatencyMs: number;
}

export interface WorldPlan {
  hosts: HostPlan[];
  /** The corpus pages, in manifest order. */
  pages: PagePlan[];
  /** Pages of the scenarios, by scenario. */
  special: { imageHang: PagePlan[]; cache: PagePlan[] };
  /** Names whose nameserver never answers (stalled pages use them; never a host). */
  silentNames: string[];
  /** The name every imageHang page takes its og:image from; silent too. */
  hangImageHost: string;
}

/** The query parameter that makes a page URL new without changing which page it is. */
export const VERSION_PARAM = '_w';
/** Pages sharing one original URL are told apart by this parameter. */
const CORPUS_PARAM = '_corpus';
const SILENT_NAMES = 300;
const CACHE_HOSTS = 6;
const CACHE_PAGES_PER_HOST = 10;

/** 20–60 ms from the name (FNV-1a), so a host is equally far in every run. */
function latencyOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return 20 + ((hash >>> 0) % 41);
}

export async function planWorld(): Promise<WorldPlan> {
  const raw = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'manifest.json'), 'utf8')) as { file: string; original_url: string | null }[];
  const originals = new Map(raw.map((entry) => [path.basename(entry.file), entry.original_url]));
  const listeners = new Map<string, Map<number, HostProtocol>>();
  const listen = (url: URL, protocol: HostProtocol) => {
    const ports = listeners.get(url.hostname) ?? new Map<number, HostProtocol>();
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (!ports.has(port)) ports.set(port, url.protocol === 'http:' ? 'http' : protocol);
    listeners.set(url.hostname, ports);
  };

  const seen = new Set<string>();
  const pages: PagePlan[] = [];
  for (const page of loadManifest()) {
    const original = originals.get(page.name);
    const stem = page.name
      .replace(/\.html?$/i, '')
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-');
    const url = new URL(original ?? `https://${stem}.world.test/`);
    url.hash = '';
    if (seen.has(pageKey(url))) url.searchParams.set(CORPUS_PARAM, page.name);
    seen.add(pageKey(url));
    // Known sites offer HTTP/2 over TLS (nearly all large ones do); made-up ones are split
    // between HTTP/2 and HTTP/1.1 so both paths of the service are in the world.
    listen(url, original || latencyOf(url.hostname) % 2 === 0 ? 'h2' : 'https');
    const scan = await scanHead(readPage(page.name), { httpCharset: mediaTypeCharset(page.contentType) });
    const { og, twitter } = extractBoth(scan.tags, url);
    const imageUrls = [...new Set([og.image.url, twitter.image.url, og.favicon.url].filter((u): u is string => !!u))];
    for (const image of imageUrls) listen(new URL(image), 'h2');
    pages.push({ file: page.name, contentType: page.contentType, url: url.href, imageUrls, imageLatencyMs: 0 });
  }

  const special = synthetic(listen);
  const names = [...listeners.keys()].sort();
  const hosts = names.map((name, i): HostPlan => ({
    name,
    // 127.0.1.1 onwards: 127.0.0.x stays free for the nameserver, the service and other tests.
    address: `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`,
    latencyMs: latencyOf(name),
    listeners: [...listeners.get(name)!].map(([port, protocol]) => ({ port, protocol })),
  }));
  const latency = new Map(hosts.map((h) => [h.name, h.latencyMs]));
  for (const page of [...pages, ...special.imageHang, ...special.cache]) {
    page.imageLatencyMs = Math.max(0, ...page.imageUrls.map((u) => latency.get(new URL(u).hostname) ?? 0));
  }
  const silentNames = Array.from({ length: SILENT_NAMES }, (_, i) => `stall-${i}.silent.world.test`);
  return { hosts, pages, special, silentNames: [...silentNames, HANG_IMAGE_HOST], hangImageHost: HANG_IMAGE_HOST };
}

/** How the world finds the page of a request: host, path and query without the version parameter. */
export function pageKey(url: URL): string {
  const query = new URLSearchParams(url.search);
  query.delete(VERSION_PARAM);
  query.sort();
  return `${url.hostname}${url.pathname}?${query}`;
}

const HANG_IMAGE_HOST = 'img.silent.world.test';

/** The scenario pages: small HTML heads with one og:image each (and the host's /favicon.ico). */
function synthetic(listen: (url: URL, protocol: HostProtocol) => void): WorldPlan['special'] {
  const page = (url: string, image: string): PagePlan => {
    listen(new URL(url), 'h2');
    listen(new URL('/favicon.ico', url), 'h2');
    if (!image.includes(HANG_IMAGE_HOST)) listen(new URL(image), 'h2');
    return { file: url, contentType: 'text/html; charset=utf-8', url, imageUrls: [image, new URL('/favicon.ico', url).href], imageLatencyMs: 0 };
  };
  const imageHang = Array.from({ length: 6 }, (_, i) => page(`https://hang.world.test/story/${i}`, `https://${HANG_IMAGE_HOST}/preview.png`));
  const cache: PagePlan[] = [];
  for (let h = 1; h <= CACHE_HOSTS; h++) {
    for (let n = 0; n < CACHE_PAGES_PER_HOST; n++) cache.push(page(`https://cache-${h}.world.test/post/${n}`, `https://img.cache-${h}.world.test/p/${n}.jpg`));
  }
  return { imageHang, cache };
}

/** The HTML of a synthetic page. */
export function syntheticHtml(page: PagePlan): string {
  const image = page.imageUrls[0]!;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${page.url}</title><meta property="og:title" content="World page"><meta property="og:image" content="${image}"></head><body><p>${'Text. '.repeat(200)}</p></body></html>`;
}
