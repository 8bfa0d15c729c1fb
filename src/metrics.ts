// Prometheus metrics, one registry per app so two apps in one process (tests) never
// share counters. Names follow Prometheus conventions: a unit suffix, _total on counters.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface MetricsSources {
  /** Upstream fetches holding a slot, and waiting for one. */
  fetchesInFlight: () => number;
  fetchesQueued: () => number;
  /** Waiting because their client or destination holds its full share. */
  fetchesCapped: () => number;
}

export class Metrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'linkpeek_http_requests_total',
    help: 'HTTP requests answered, by route and status code.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  readonly requestDuration = new Histogram({
    name: 'linkpeek_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route.',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly upstreamDuration = new Histogram({
    name: 'linkpeek_upstream_fetch_duration_seconds',
    help: 'Time from the start of an upstream fetch to its response headers (redirects included), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
    registers: [this.registry],
  });

  readonly cache = new Counter({
    name: 'linkpeek_cache_requests_total',
    help: 'Answers by cache outcome: hit (stored answers included), miss (this request fetches), shared (waited for a fetch in flight).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly dnsQueryDuration = new Histogram({
    name: 'linkpeek_dns_query_duration_seconds',
    help: 'Time of a query to the nameservers (A and AAAA together), by outcome: answered, nxdomain, nodata, servfail, refused, timeout, unreachable (no nameserver could be reached), error.',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4],
    registers: [this.registry],
  });

  readonly dnsCache = new Counter({
    name: 'linkpeek_dns_cache_requests_total',
    help: 'Name lookups: hit (cached answer), negative_hit (cached failure), miss (a query is sent), coalesced (waited for a query in flight).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'linkpeek_rate_limit_rejections_total',
    help: 'Requests answered 429, by route.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  readonly safetyFailures = new Counter({
    name: 'linkpeek_safety_provider_failures_total',
    help: 'Safety providers that failed or ran out of time (they contribute no tags).',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricsSources) {
    new Gauge({
      name: 'linkpeek_upstream_fetches_in_flight',
      help: 'Upstream fetches holding a concurrency slot.',
      registers: [this.registry],
      collect() {
        this.set(sources.fetchesInFlight());
      },
    });
    new Gauge({
      name: 'linkpeek_upstream_fetches_queued',
      help: 'Upstream fetches waiting for a free concurrency slot (their own shares allow them).',
      registers: [this.registry],
      collect() {
        this.set(sources.fetchesQueued());
      },
    });
    new Gauge({
      name: 'linkpeek_upstream_fetches_capped',
      help: "Upstream fetches waiting because their client's or destination's share of slots is taken.",
      registers: [this.registry],
      collect() {
        this.set(sources.fetchesCapped());
      },
    });
    // Under their standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes...), which
    // stock Node.js dashboards query.
    collectDefaultMetrics({ register: this.registry });
  }
}
