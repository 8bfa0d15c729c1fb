// extract(): a page the caller already has, read by the service's own scan, walls and rules, with
// no network. What the service does after the rules needs the network (the image and favicon
// probes, oEmbed, Safe Browsing), so offline the enrichment is the safety providers that read only
// the URL, the head and the configured lists; image sizes come from the page's tags alone, and
// `embed` is null.
//
// Bounded like a fetched page: at most MAX_PAGE_BYTES of it are read (a longer page is cut there,
// as a fetch is), and its head scan by the same bounds in bytes and tags: the same answer as the
// service gives for the same bytes. It runs on the caller's thread.

import type { Metadata } from '../../generated/types.gen.js';
import type { Config } from '../config.js';
import { FetchFailed } from '../errors.js';
import { failures } from '../failure-reasons.js';
import { parseTarget } from '../fetch/target.js';
import { safetyEnricher } from '../metadata/enrich-safety.js';
import { runEnrichers } from '../metadata/enrichment.js';
import type { Prefer } from '../metadata/service-types.js';
import type { SafetyCheck } from '../safety/index.js';
import { refuseWalls } from '../walls/detect.js';
import { scanPage } from '../scan/page-scan.js';
import { invalidArgument } from './preview-error.js';

export interface ExtractHtmlOptions {
  /** Required: the page's URL (absolute http or https), which relative links resolve against. Nothing is fetched from it. */
  url: string | URL;
  /** The response headers the page came with, if any: Content-Type's charset (for bytes), Content-Language, and bot-check markers. */
  headers?: Readonly<Record<string, string>>;
  /** Which family wins where Open Graph and Twitter Card disagree (the API's `prefer`). */
  prefer?: Prefer;
}

export const PREFERENCES: readonly Prefer[] = ['og', 'twitter'];

/** The API's words for a `prefer` outside its enum (api/validation.ts). */
export function checkPrefer(prefer: unknown): Prefer {
  if (prefer === undefined) return 'og';
  if (!PREFERENCES.includes(prefer as Prefer)) throw invalidArgument('prefer', `must be equal to one of the allowed values: ${PREFERENCES.join(', ')}`);
  return prefer as Prefer;
}

/** The page's bytes, at most `maxBytes` of them, and the Content-Type they are read under. */
function pageBytes(html: unknown, contentType: string | undefined, maxBytes: number): { bytes: Uint8Array; contentType: string } {
  if (typeof html === 'string') {
    // Already text: read as UTF-8 whatever its <meta charset> says. No more characters are
    // encoded than can fit (a character is at least one byte).
    const bytes = new TextEncoder().encode(html.length > maxBytes ? html.slice(0, maxBytes) : html);
    return { bytes: bytes.subarray(0, maxBytes), contentType: 'text/html; charset=utf-8' };
  }
  if (html instanceof Uint8Array) return { bytes: html.subarray(0, maxBytes), contentType: contentType ?? 'text/html' };
  throw invalidArgument('html', `must be a string or bytes (Uint8Array), not ${html === null ? 'null' : typeof html}`);
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null) throw invalidArgument('headers', 'must be an object of header names and string values');
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw invalidArgument('headers', `${name}: must be a string`);
    out[name.toLowerCase()] = value;
  }
  return out;
}

export async function extractFromHtml(html: unknown, options: ExtractHtmlOptions, config: Config, safety: SafetyCheck): Promise<Metadata> {
  const { url: rawUrl, prefer: rawPrefer, headers: rawHeaders } = (options ?? {}) as Partial<ExtractHtmlOptions>;
  if (typeof rawUrl !== 'string' && !(rawUrl instanceof URL)) throw invalidArgument('url', 'is required: the URL of the page, to resolve its links against');
  // Nothing is fetched: a page of a private network may be read.
  const url = parseTarget(String(rawUrl), { allowPrivateNetworks: true });
  const prefer = checkPrefer(rawPrefer);
  const headers = lowerCaseHeaders(rawHeaders);
  const page = pageBytes(html, headers['content-type'], config.maxPageBytes);
  if (page.bytes.length === 0) throw new FetchFailed('empty html', { failure: failures.emptyPage() });

  const scan = await scanPage({
    bytes: page.bytes,
    contentType: page.contentType,
    pageUrl: url.href,
    requestedUrl: url.href,
    contentLanguage: headers['content-language'] ?? null,
  });
  refuseWalls(url, { status: 200, headers, url, tags: scan.tags });
  const both = { og: scan.og, twitter: scan.twitter };
  const input = { target: url, client: undefined, finalUrl: url, tags: scan.tags, ...both };
  await runEnrichers(input, { enrichers: [safetyEnricher(safety)] }, config.enrichBudgetMs);
  return structuredClone(both[prefer]);
}
