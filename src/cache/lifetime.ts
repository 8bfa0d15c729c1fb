// How long cached things live, in one place. An extraction lives CACHE_TTL_MS (a page's failure
// CACHE_FAILURE_TTL_MS) from the moment it is stored, and carries that moment of expiry with it.
// Every answer built from an extraction — whichever `prefer`, however much later — is stored only
// for what is left of that extraction's life, so no answer is served past docs/SPEC.md's bound.

import type { Config } from '../config.js';

export type LifetimeSettings = Pick<Config, 'cacheTtlMs' | 'cacheFailureTtlMs'>;

/** The cache's clock (epoch ms): Date.now, or one a test moves to see lifetimes end. */
export type Clock = () => number;

/** When an extraction stored now expires (epoch ms). */
export function extractionExpiry(ok: boolean, settings: LifetimeSettings, now = Date.now()): number {
  return now + (ok ? settings.cacheTtlMs : settings.cacheFailureTtlMs);
}

/** lru-cache's options for entries timed on `now` (none: its own clock). */
export function lruClock(now: Clock | undefined): { perf?: { now: Clock }; ttlResolution?: number } {
  return now ? { perf: { now }, ttlResolution: 0 } : {};
}

/** Milliseconds left until `expiresAt`; zero or less means expired (nothing to store). */
export function remainingMs(expiresAt: number, now = Date.now()): number {
  return expiresAt - now;
}
