// The clients' side of the fairness benchmark: one GET from a chosen loopback source address
// (optionally with X-Forwarded-For), and the /healthz poll.

import { metadataUrl, timedGet, type Timed } from '../lib/stall-world.js';

export interface From {
  /** The TCP source address, in 127.0.0.0/8. */
  address: string;
  /** Sent as X-Forwarded-For (the service runs with TRUST_PROXY). */
  forwardedFor?: string;
}

/** One GET from `from` on a connection of its own; status 0 when no answer came within `timeoutMs`. */
export function get(url: string, from: From, timeoutMs: number): Promise<Timed> {
  return timedGet(url, from.address, timeoutMs, from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {});
}

export interface HealthSample {
  /** performance.now() when the answer came. */
  at: number;
  /** `status` of the report, or 'no answer'. */
  status: string;
  loopP99: number;
  loopMax: number;
  inFlight: number;
  queued: number;
  /** The share of clients refused past capacity (0 when none, or no shedding report). */
  shedFraction: number;
  /** Pages refused per second over the last 10 s. */
  refusedPerSecond: number;
  /** The ceiling on pages in flight (null when none, or no shedding report). */
  ceiling: number | null;
  /** The delays that stood in the last interval. */
  standing: string[];
  /** The rules that made it `degraded` (its `degraded_by`). */
  degradedBy: string[];
}

const HEALTH_EVERY_MS = 250;
const HEALTH_TIMEOUT_MS = 5000;

/** Polls /healthz every 250 ms (one at a time) from 127.0.0.1 until stop(); never longer than `longestMs`. */
export function pollHealth(origin: string, longestMs: number): { samples: HealthSample[]; stop(): Promise<void> } {
  const samples: HealthSample[] = [];
  let stopped = false;
  const until = performance.now() + longestMs;
  const loop = (async () => {
    while (!stopped && performance.now() < until) {
      const started = performance.now();
      const res = await get(`${origin}/healthz`, { address: '127.0.0.1' }, HEALTH_TIMEOUT_MS);
      samples.push(readHealth(res));
      await new Promise((r) => setTimeout(r, Math.max(0, started + HEALTH_EVERY_MS - performance.now())));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

function readHealth(res: Timed): HealthSample {
  const at = performance.now();
  try {
    const report = JSON.parse(res.body) as {
      status: string;
      event_loop_delay_ms: { p99: number; max: number };
      upstream_fetches: { in_flight: number; queued: number };
      shedding?: { fraction: number; ceiling?: number | null; refused_per_s: number; standing: string[] };
      degraded_by?: string[];
    };
    return {
      at,
      status: report.status,
      loopP99: report.event_loop_delay_ms.p99,
      loopMax: report.event_loop_delay_ms.max,
      inFlight: report.upstream_fetches.in_flight,
      queued: report.upstream_fetches.queued,
      shedFraction: report.shedding?.fraction ?? 0,
      refusedPerSecond: report.shedding?.refused_per_s ?? 0,
      ceiling: report.shedding?.ceiling ?? null,
      standing: report.shedding?.standing ?? [],
      degradedBy: report.degraded_by ?? [],
    };
  } catch {
    return {
      at,
      status: 'no answer',
      loopP99: NaN,
      loopMax: NaN,
      inFlight: NaN,
      queued: NaN,
      shedFraction: 0,
      refusedPerSecond: 0,
      ceiling: null,
      standing: [],
      degradedBy: [],
    };
  }
}

export { metadataUrl };
