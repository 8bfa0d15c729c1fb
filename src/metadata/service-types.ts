// What the API needs from the metadata service: the pipeline behind its cache (docs/ARCHITECTURE.md).

import type { Metadata } from '../../generated/types.gen.js';

export type Prefer = 'og' | 'twitter';

/** How a request's answer came about: from the cache, fetched for it, or shared with a fetch in flight. */
export type CacheOutcome = 'hit' | 'miss' | 'shared';

/** The steps of an uncached answer that Server-Timing reports, in the order they happen. */
export type TimingStep = 'dns' | 'connect' | 'fetch' | 'scan' | 'enrich';

/** Filled in by the service as it answers one request (api/server-timing.ts makes the header). */
export interface RequestTiming {
  cache: CacheOutcome;
  /** Adds a step's duration in milliseconds; null (not measured) adds nothing. */
  step(name: TimingStep, ms: number | null | undefined): void;
}

/** One preference of an extraction, and when that extraction expires (epoch ms): the answer must not outlive it. */
export interface Answer {
  metadata: Metadata;
  expiresAt: number;
}

export interface MetadataService {
  /**
   * Metadata of the page at `target`, fetched on behalf of the client at IP `client` (its fair
   * share of fetch slots); throws FetchFailed / FetchTimeout / Overloaded. `timing` hears the
   * cache outcome and, when this request fetched, how long each step took.
   */
  get(target: URL, prefer: Prefer, client?: string, timing?: RequestTiming): Promise<Answer>;
  close(): Promise<void>;
}

/** Both preferences of one page. */
export interface Extracted {
  og: Metadata;
  twitter: Metadata;
}

/**
 * Extracts the page at `target` on behalf of the client at IP `client` (its fair share of fetch
 * slots and scans); throws FetchFailed / FetchTimeout / Overloaded. `timing` hears how long each step took.
 */
export type MetadataPipeline = (target: URL, client?: string, timing?: RequestTiming) => Promise<Extracted>;
