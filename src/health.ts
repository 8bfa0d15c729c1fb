// What /healthz reports: whether this instance answers, whether its shared stores are
// reachable, how late its event loop runs and whether its upstream fetch slots are saturated. A
// load balancer reads `status`; people read the rest.
//
// `degraded` when any of: Redis is configured but failing (store/failover.ts: refused, or silent
// past REDIS_TIMEOUT_MS); the event loop's p99 delay is over 500 ms; the fetch slots are
// saturated (fetch/limiter.ts: every slot taken while a fetch its caps allow waits for one, now or
// within the last 5 s). Fetches held back only by their own client's or host's share do not count:
// that is the fair share working, not the instance running out.

import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Health } from '../generated/types.gen.js';

export interface HealthSources {
  /** null when no Redis is configured; else whether it answers now. */
  redisUp: () => boolean | null;
  fetchSlots: FetchSlots;
  /** The resolver's last 30 s (fetch/dns-window.ts holds the `degraded` rule). */
  dns: () => { queries: number; timeouts: number; unreachable: number; degraded: boolean; cachedNames: number };
}

/** What /healthz reads of the fetch limiter (fetch/limiter.ts). */
interface FetchSlots {
  readonly inFlight: number;
  readonly queued: number;
  readonly capped: number;
  readonly maxActive: number;
  readonly saturated: boolean;
}

/** An event loop this late at the 99th percentile is not healthy, whatever else is. */
const LAGGING_P99_MS = 500;
/** The delay histogram covers the last window of this length (then starts afresh). */
const WINDOW_MS = 30_000;

export class HealthMonitor {
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
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
    const slots = this.sources.fetchSlots;
    const saturated = slots.saturated;
    const dns = this.sources.dns();
    const degraded = redis === 'down' || delay.p99 > LAGGING_P99_MS || saturated || dns.degraded;
    const status = this.stopping ? 'stopping' : degraded ? 'degraded' : 'ok';
    return {
      status,
      redis,
      event_loop_delay_ms: delay,
      upstream_fetches: { in_flight: slots.inFlight, max_in_flight: slots.maxActive, queued: slots.queued, capped: slots.capped, saturated },
      uptime_s: Math.round((performance.now() - this.startedAt) / 1000),
      dns: { queries: dns.queries, timeouts: dns.timeouts, unreachable: dns.unreachable, cached_names: dns.cachedNames },
    };
  }

  close(): void {
    clearInterval(this.timer);
    this.loop.disable();
  }

  private sample(): { p99: number; max: number } {
    // The histogram counts nanoseconds; an empty one reports NaN/huge values, hence the guards.
    const ms = (ns: number) => (Number.isFinite(ns) && this.loop.count > 0 ? Math.round(ns / 1e4) / 100 : 0);
    return { p99: ms(this.loop.percentile(99)), max: ms(this.loop.max) };
  }
}
