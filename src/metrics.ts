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

  readonly requests = this.counter('linkpeek_http_requests_total', 'HTTP requests answered, by route and status code.', ['route', 'status']);

  readonly requestDuration = this.histogram(
    'linkpeek_http_request_duration_seconds',
    'Time to answer an HTTP request, by route.',
    ['route'],
    [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );

  readonly upstreamDuration = this.histogram(
    'linkpeek_upstream_fetch_duration_seconds',
    'Time from the start of an upstream fetch to its response headers (redirects included), by outcome.',
    ['outcome'],
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
  );

  readonly cache = this.counter(
    'linkpeek_cache_requests_total',
    'Answers by cache outcome: hit (stored answers included), miss (this request fetches), shared (waited for a fetch in flight).',
    ['outcome'],
  );

  readonly dnsQueryDuration = this.histogram(
    'linkpeek_dns_query_duration_seconds',
    'Time of a query to the nameservers (A and AAAA together), by outcome: answered, nxdomain, nodata, servfail, refused, timeout, unreachable (no nameserver could be reached), error.',
    ['outcome'],
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4],
  );

  readonly dnsCache = this.counter(
    'linkpeek_dns_cache_requests_total',
    'Name lookups: hit (cached answer), negative_hit (cached failure), miss (a query is sent), coalesced (waited for a query in flight).',
    ['result'],
  );

  readonly rateLimited = this.counter('linkpeek_rate_limit_rejections_total', 'Requests answered 429, by route.', ['route']);

  readonly safetyFailures = this.counter(
    'linkpeek_safety_provider_failures_total',
    'Safety providers that failed or ran out of time (they contribute no tags).',
    ['provider'],
  );

  constructor(sources: MetricsSources) {
    this.gauge('linkpeek_upstream_fetches_in_flight', 'Upstream fetches holding a concurrency slot.', sources.fetchesInFlight);
    this.gauge(
      'linkpeek_upstream_fetches_queued',
      'Upstream fetches waiting for a free concurrency slot (their own shares allow them).',
      sources.fetchesQueued,
    );
    this.gauge(
      'linkpeek_upstream_fetches_capped',
      "Upstream fetches waiting because their client's or destination's share of slots is taken.",
      sources.fetchesCapped,
    );
    // Under their standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes...), which
    // stock Node.js dashboards query.
    collectDefaultMetrics({ register: this.registry });
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** A gauge read when /metrics is scraped. */
  private gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
