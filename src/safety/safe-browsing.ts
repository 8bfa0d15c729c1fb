// security_threat from Google Safe Browsing v4 Lookup API: POST threatMatches:find
// with the page URL when SAFE_BROWSING_API_KEY is set. Verdicts are cached per URL for the
// `cacheDuration` the API returns with each match (the API's caching rule), in a bounded LRU.
// https://developers.google.com/safe-browsing/v4/lookup-api

import { LRUCache } from 'lru-cache';
import type { SafetyTag } from '../../generated/types.gen.js';
import type { SafetyProvider } from './provider.js';

/** The threats LinkPeek asks about: everything that applies to a web page on any platform. */
export const THREAT_TYPES = ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'] as const;

const SAFE_BROWSING_CACHE = {
  /** URLs remembered at most (a verdict is ~100 bytes with its key). */
  maxEntries: 10_000,
  /**
   * How long "no match" is trusted. The Lookup API returns a cacheDuration only with matches;
   * five minutes is the duration it commonly returns for matches, and keeps a newly listed URL
   * from being missed for long.
   */
  safeTtlMs: 5 * 60_000,
  /** Used when a match carries no readable cacheDuration. */
  defaultMatchTtlMs: 5 * 60_000,
  /** A cacheDuration is never trusted beyond a day (a broken or hostile answer cannot pin a verdict). */
  maxTtlMs: 24 * 60 * 60_000,
  /** After a 429 without Retry-After, requests pause this long (the daily quota is spent). */
  defaultBackoffMs: 60_000,
} as const;

/** Why a lookup gave no verdict: an HTTP status, a body that is not the API's, or a back-off. */
export class SafeBrowsingFailed extends Error {
  constructor(
    readonly reason: string,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(`Safe Browsing lookup failed: ${reason}`, options);
    this.name = 'SafeBrowsingFailed';
  }
}

export interface SafeBrowsingOptions {
  apiKey: string;
  /** The threatMatches:find endpoint (SAFE_BROWSING_URL). */
  endpoint: string;
  fetch?: typeof globalThis.fetch;
  clientId?: string;
  clientVersion?: string;
  now?: () => number;
}

interface Verdict {
  threat: boolean;
}

/** "300s", "12.5s" (protobuf Duration as JSON) to milliseconds; null when unreadable. */
export function parseDuration(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return m ? Math.round(Number(m[1]) * 1000) : null;
}

/** The request body of threatMatches:find for one URL. */
function lookupBody(url: string, clientId: string, clientVersion: string): object {
  return {
    client: { clientId, clientVersion },
    threatInfo: {
      threatTypes: [...THREAT_TYPES],
      platformTypes: ['ANY_PLATFORM'],
      threatEntryTypes: ['URL'],
      threatEntries: [{ url }],
    },
  };
}

/** Reads the answer: `{}` is safe; `{matches: [...]}` is a threat for the shortest cacheDuration. */
function readAnswer(body: unknown): { threat: boolean; ttlMs: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SafeBrowsingFailed('answer is not a JSON object');
  }
  const matches = (body as { matches?: unknown }).matches;
  if (matches === undefined) return { threat: false, ttlMs: SAFE_BROWSING_CACHE.safeTtlMs };
  if (!Array.isArray(matches)) throw new SafeBrowsingFailed('matches is not an array');
  const relevant = matches.filter(
    (m): m is { threatType: string; cacheDuration?: unknown } =>
      typeof m === 'object' && m !== null && (THREAT_TYPES as readonly string[]).includes((m as { threatType?: unknown }).threatType as string),
  );
  if (relevant.length === 0) return { threat: false, ttlMs: SAFE_BROWSING_CACHE.safeTtlMs };
  const ttls = relevant.map((m) => parseDuration(m.cacheDuration) ?? SAFE_BROWSING_CACHE.defaultMatchTtlMs);
  return { threat: true, ttlMs: Math.min(SAFE_BROWSING_CACHE.maxTtlMs, ...ttls) };
}

export function safeBrowsingProvider(options: SafeBrowsingOptions): SafetyProvider {
  const doFetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const endpoint = new URL(options.endpoint);
  endpoint.searchParams.set('key', options.apiKey);
  // ttlResolution 0: every read asks the clock, so a verdict never outlives its cacheDuration.
  const cache = new LRUCache<string, Verdict>({ max: SAFE_BROWSING_CACHE.maxEntries, ttlResolution: 0, perf: { now } });
  let pausedUntil = 0;

  async function lookup(url: string, signal: AbortSignal): Promise<boolean> {
    const cached = cache.get(url);
    if (cached) return cached.threat;
    if (now() < pausedUntil) throw new SafeBrowsingFailed('paused after 429 (quota)');

    const response = await doFetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(lookupBody(url, options.clientId ?? 'linkpeek', options.clientVersion ?? '1.0.0')),
      signal,
    });
    const text = await response.text();
    if (response.status === 429) {
      const retryAfter = Number(response.headers.get('retry-after'));
      pausedUntil = now() + (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : SAFE_BROWSING_CACHE.defaultBackoffMs);
    }
    if (!response.ok) throw new SafeBrowsingFailed(`HTTP ${response.status}`, response.status);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new SafeBrowsingFailed('answer is not JSON', response.status, { cause: err });
    }
    const verdict = readAnswer(body);
    cache.set(url, { threat: verdict.threat }, { ttl: verdict.ttlMs });
    return verdict.threat;
  }

  return {
    name: 'safe-browsing',
    async check({ url }, signal): Promise<SafetyTag[]> {
      return (await lookup(url.href, signal)) ? ['security_threat'] : [];
    },
    close: () => cache.clear(),
  };
}
