// What /healthz reports: whether this instance answers, whether its shared stores are
// reachable, and how its shared resources fare: the event loop, fetch and lookup slots (with the
// time fair clients waited for them), the nameservers, and the page scans (their times, how many
// stopped at a markup bound, and their queue for a scan thread). A load balancer reads `status`; people read the rest, and `degraded_by` says
// which rule made it `degraded` (health-rules.ts).

import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Health } from '../generated/types.gen.js';
import type { ShedStats } from './fairness/load-shedder.js';
import type { WaitStats } from './fairness/wait-window.js';
import { degradedBy } from './health-rules.js';

export interface HealthSources {
  /** null when no Redis is configured; else whether it answers now. */
  redisUp: () => boolean | null;
  fetchSlots: Slots;
  /** The lookup slots; null when names are not looked up by the resolver (a test's own lookup). */
  lookupSlots: Slots | null;
  /** The resolver's last 20 s (fetch/dns-window.ts holds the `degraded` rule). */
  dns: () => { queries: number; timeouts: number; unreachable: number; degraded: boolean; cachedNames: number };
  /** Page scans of the last 10 s (scan/scan-times.ts); null when this instance scans nothing. */
  scans: (() => { count: number; p50: number; p90: number; max: number; markupLimit: number }) | null;
  /** The queue for scan threads (scan/scan-pool.ts); null when pages are scanned inline. */
  scanSlots: Slots | null;
  /** Pages refused past capacity (fairness/load-shedder.ts); null when none ever are. */
  shedding: (() => ShedStats) | null;
}

/** What /healthz reads of a fair scheduler's slots (fetch/fairness/fair-queue.ts). */
interface Slots {
  readonly inFlight: number;
  readonly queued: number;
  readonly capped: number;
  readonly maxActive: number;
  readonly saturated: boolean;
  recentWait(): WaitStats;
}

/**
 * The delay histogram's timer period. What it records is the time between two runs of its timer, the
 * period included (an idle loop reads 10.1 ms): the delay is what exceeds the period.
 */
const LOOP_RESOLUTION_MS = 10;

/** The delay histogram covers a window of this length, then starts afresh; the last full one is kept beside it. */
const WINDOW_MS = 10_000;

export class HealthMonitor {
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  private last = { p99: 0, max: 0 };
  private readonly timer: NodeJS.Timeout;
  private readonly startedAt = performance.now();
  stopping = false;

  constructor(private readonly sources: HealthSources) {
    this.loop.enable();
    this.timer = setInterval(() => {
      this.last = this.sample();
      this.loop.reset();
    }, WINDOW_MS);
    this.timer.unref();
  }

  /**
   * Forgets the delay measured so far: the app's own start-up (schema compilation in
   * openapi-backend blocks the loop for a few hundred ms) says nothing about its health.
   */
  started(): void {
    this.loop.reset();
    this.last = { p99: 0, max: 0 };
  }

  report(): Health {
    const now = this.sample();
    const delay = { p99: Math.max(now.p99, this.last.p99), max: Math.max(now.max, this.last.max) };
    const redisUp = this.sources.redisUp();
    const redis = redisUp === null ? 'not_configured' : redisUp ? 'ok' : 'down';
    const fetchWait = this.sources.fetchSlots.recentWait();
    const lookupSlots = this.sources.lookupSlots;
    const lookupWait = lookupSlots?.recentWait();
    const fetches = slotReport(this.sources.fetchSlots, fetchWait);
    const lookups = lookupSlots && lookupWait ? slotReport(lookupSlots, lookupWait) : null;
    const dns = this.sources.dns();
    const scans = this.sources.scans?.() ?? null;
    const scanSlots = this.sources.scanSlots;
    const scanWait = scanSlots?.recentWait();
    const shed = this.sources.shedding?.() ?? null;
    const reasons = degradedBy({
      shedding: shed !== null && (shed.shedding || shed.refusedPerSecond > 0),
      redisDown: redis === 'down',
      eventLoopP99Ms: delay.p99,
      fetches: { saturated: fetches.saturated, capped: fetches.capped, wait: fetchWait },
      lookups: lookups && lookupWait ? { saturated: lookups.saturated, wait: lookupWait } : null,
      dnsDegraded: dns.degraded,
      scans: scanSlots && scanWait ? { saturated: scanSlots.saturated, wait: scanWait } : null,
    });
    const status = this.stopping ? 'stopping' : reasons.length > 0 ? 'degraded' : 'ok';
    return {
      status,
      degraded_by: reasons,
      redis,
      event_loop_delay_ms: delay,
      upstream_fetches: fetches,
      ...(lookups && { lookups }),
      uptime_s: Math.round((performance.now() - this.startedAt) / 1000),
      dns: { queries: dns.queries, timeouts: dns.timeouts, unreachable: dns.unreachable, cached_names: dns.cachedNames },
      ...(scans && {
        scans: {
          count: scans.count,
          p50_ms: scans.p50,
          p90_ms: scans.p90,
          max_ms: scans.max,
          markup_limit: scans.markupLimit,
          ...(scanSlots && scanWait && { threads: slotReport(scanSlots, scanWait) }),
        },
      }),
      ...(shed && {
        shedding: {
          refusing: shed.shedding,
          fraction: shed.fraction,
          ceiling: shed.ceiling,
          refused_per_s: shed.refusedPerSecond,
          admitted_per_s: shed.admittedPerSecond,
          standing: shed.standing,
        },
      }),
    };
  }

  close(): void {
    clearInterval(this.timer);
    this.loop.disable();
  }

  private sample(): { p99: number; max: number } {
    // The histogram counts nanoseconds, its period included; an empty one reports NaN/huge values, hence the guards.
    const ms = (ns: number) => (Number.isFinite(ns) && this.loop.count > 0 ? Math.max(0, Math.round((ns / 1e6 - LOOP_RESOLUTION_MS) * 100) / 100) : 0);
    return { p99: ms(this.loop.percentile(99)), max: ms(this.loop.max) };
  }
}

/** A fair scheduler's slots as /healthz shows them, with the waits of the last 10 s. */
function slotReport(slots: Slots, { p50, p90, max }: WaitStats): Health['upstream_fetches'] {
  return {
    in_flight: slots.inFlight,
    max_in_flight: slots.maxActive,
    queued: slots.queued,
    capped: slots.capped,
    saturated: slots.saturated,
    wait_ms: { p50, p90, max },
  };
}
