// safeFetch: the one way LinkPeek talks to the internet (docs/ARCHITECTURE.md).
//
// Per fetch: a limiter slot within the fair shares of its client and destination (or Overloaded),
// one deadline over queue + connect + headers + body, redirects followed by hand with every hop
// re-checked, the policy's request headers and nothing from the client, decoded bytes counted
// against maxBytes (response-body.ts). Per connection: the address guard of connector.ts.
// Upstream status codes are not errors here: callers decide what a 404 means.

import { Agent } from 'undici';
import type { Config } from '../config.js';
import { FetchFailed } from '../errors.js';
import { chargedClient, chargeOf } from './charge.js';
import { createGuardedConnector } from './connector.js';
import { failures } from '../failure-reasons.js';
import { findBlocked, toFetchError } from './classify-error.js';
import { FetchDeadline } from './fetch-deadline.js';
import { FetchLimiter } from './limiter.js';
import { NameLookups } from './lookups.js';
import { CALLER_HEADERS, REDIRECT_STATUSES, requestHeaders } from './policy.js';
import { DnsResolver, type Resolver } from './resolver.js';
import { readable, type UndiciResponse } from './response-body.js';
import { targetProblem } from './target.js';
import { hrefWithoutFragment } from '../url-fragment.js';
import { FetchTimings } from './timings.js';
import type { SafeFetch, SafeFetchOptions, SafeFetchResponse } from './types.js';

interface SafeFetchLogger {
  warn(obj: object, msg?: string): void;
}

export interface SafeFetchDeps {
  /** How names are resolved (default: the caching c-ares resolver built from DNS_SERVERS and DNS_TIMEOUT_MS). */
  resolver?: Resolver;
  /** Told about refused targets: a blocked address or redirect is worth a look (SSRF probing). */
  logger?: SafeFetchLogger;
  /**
   * Test seam: which addresses count as public (default address.ts isPublicAddress), applied to
   * URLs, DNS answers and sockets alike. Tests use it to trust one loopback fixture while every
   * other address stays guarded; production never sets it.
   */
  isPublicAddress?: (ip: string) => boolean;
}

export interface SafeFetchService {
  safeFetch: SafeFetch;
  /** The caps on upstream fetches: per instance, client and destination (for metrics and /healthz). */
  limiter: FetchLimiter;
  /** Name lookups and their fair shares. */
  lookups: NameLookups;
  /**
   * Charges `cpuMs` of CPU (a page's head scan) to the client at IP `client` (absent: the
   * service's own): while recent, its shares of fetches and lookups shrink and it is served after
   * cheaper clients (fairness/client-ledger.ts). `pages`: how many pages' scans this charge ends.
   */
  chargeCpu(client: string | undefined, cpuMs: number, pages?: number): void;
  /** The resolver every upstream name goes through (for metrics, /healthz and prefetching). */
  resolver: Resolver;
  /**
   * Shuts the upstream side down: waits for fetches in flight (each bounded by its deadline,
   * which also ends a body nobody reads), then closes every upstream connection. With `cut`, the
   * fetches in flight are ended at once (a shutdown whose grace is over: nobody waits for them).
   */
  close(options?: CloseOptions): Promise<void>;
}

export interface CloseOptions {
  /** End the fetches in flight instead of waiting for them. */
  cut?: boolean;
}

/** Bytes of a redirect's own body read to keep its connection reusable; past it, the connection closes. */
const REDIRECT_BODY_DRAIN = 64 * 1024;

export function createSafeFetch(config: Config, deps: SafeFetchDeps = {}): SafeFetchService {
  const resolver: Resolver = deps.resolver ?? new DnsResolver({ timeoutMs: config.dnsTimeoutMs, servers: config.dnsServers });
  const agent = new Agent({
    allowH2: true,
    connect: createGuardedConnector(config, {
      lookup: resolver.lookup,
      resolve: (hostname) => resolver.resolve(hostname),
      isPublic: deps.isPublicAddress,
    }),
    // undici's own timers are a second net under the total deadline, never the first: they are
    // coarse (FastTimer, ~0.5 s ticks) and would otherwise race it.
    headersTimeout: 2 * config.fetchTimeoutMs,
    bodyTimeout: 2 * config.fetchTimeoutMs,
  });
  const limiter = new FetchLimiter({
    maxActive: config.maxConcurrentFetches,
    maxQueued: config.fetchQueueMax,
    perClient: config.maxFetchesPerClient,
    perHost: config.maxFetchesPerHost,
  });
  // One cost ledger for both: a client's costly pages shrink its lookups too.
  const lookups = new NameLookups(resolver, {
    maxActive: config.maxConcurrentLookups,
    maxQueued: config.lookupQueueMax,
    perClient: config.maxLookupsPerClient,
    costs: limiter.costs,
  });
  const targetOptions = { allowPrivateNetworks: config.allowPrivateNetworks, isPublic: deps.isPublicAddress };

  async function safeFetch(url: URL, options: SafeFetchOptions): Promise<SafeFetchResponse> {
    const headers = { ...requestHeaders(config, options.accept), ...callerHeaders(options.headers) };
    const deadline = new FetchDeadline(config.fetchTimeoutMs, options.signal);
    const timings = new FetchTimings();
    try {
      // A name already answered goes straight on: no extra turn of the event loop.
      if (needsLookup(url)) await lookUp(url, options.client, deadline, timings);
      deadline.hold(await limiter.acquire(deadline.signal, chargeOf(url, options.client)));
      const { finalUrl, response } = await followRedirects(url, headers, deadline, timings, options.client);
      return readable(finalUrl, response, options.maxBytes, deadline, timings, options.bodyDeadline);
    } catch (err) {
      deadline.end(err instanceof Error ? err : undefined);
      const blocked = findBlocked(err);
      if (blocked) {
        const { hostname, address, why } = blocked;
        deps.logger?.warn({ url: hrefWithoutFragment(url), hostname, address, why }, 'upstream address refused');
      }
      throw toFetchError(err, 'request', deadline, url.hostname);
    }
  }

  function needsLookup(url: URL): boolean {
    return !resolver.answersAtOnce(url.hostname);
  }

  /** Resolves the host of `url` outside any fetch slot, within the client's share of lookups. */
  async function lookUp(url: URL, client: string | undefined, deadline: FetchDeadline, timings: FetchTimings): Promise<void> {
    const ms = await lookups.resolve(url.hostname, chargedClient(client), deadline.signal);
    if (ms != null) timings.add({ dnsMs: ms, connectMs: null });
  }

  /**
   * GETs `start`, following at most config.maxRedirects redirects, each hop checked like the first.
   * A hop to another destination gives its slot back, resolves the new name outside it, and asks
   * again, charged to the new destination: no lookup holds a slot, and each destination's cap
   * counts where connections really go.
   */
  async function followRedirects(
    start: URL,
    headers: Record<string, string>,
    deadline: FetchDeadline,
    timings: FetchTimings,
    client: string | undefined,
  ): Promise<{ finalUrl: URL; response: UndiciResponse }> {
    const visited = new Set<string>();
    let url = start;
    for (let hop = 0; ; hop++) {
      const problem = targetProblem(url, targetOptions);
      if (problem !== null) {
        deps.logger?.warn({ url: hrefWithoutFragment(url), hop, problem }, 'upstream target refused');
        throw new FetchFailed(`${hop === 0 ? 'target' : 'redirect target'} refused: ${problem}`, { failure: refusedTarget(problem) });
      }
      visited.add(hrefWithoutFragment(url));
      const response = await timings.claim(() =>
        agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers, signal: deadline.signal }),
      );
      if (!REDIRECT_STATUSES.has(response.statusCode)) return { finalUrl: url, response };

      // The redirect's own body is not ours to read; drain a little so the connection is reused.
      await response.body.dump({ limit: REDIRECT_BODY_DRAIN }).catch(() => {});
      const location = headerValue(response.headers['location']);
      if (location === undefined) throw new FetchFailed(`${response.statusCode} without Location`, { failure: failures.badRedirect() });
      // A relative Location is resolved against the URL that answered (RFC 9110 10.2.2).
      const next = URL.parse(location, url);
      if (!next) throw new FetchFailed(`${response.statusCode} with an invalid Location`, { failure: failures.badRedirect() });
      if (visited.has(hrefWithoutFragment(next))) throw new FetchFailed(`redirect loop at ${next.href}`, { failure: failures.redirectLoop() });
      if (hop + 1 > config.maxRedirects)
        throw new FetchFailed(`more than ${config.maxRedirects} redirects`, { failure: failures.tooManyRedirects(config.maxRedirects) });
      const charge = chargeOf(next, client);
      if (charge.host !== chargeOf(url, client).host && targetProblem(next, targetOptions) === null) {
        deadline.letGo();
        if (needsLookup(next)) await lookUp(next, client, deadline, timings);
        deadline.hold(await limiter.acquire(deadline.signal, charge));
      }
      url = next;
    }
  }

  return {
    safeFetch,
    limiter,
    lookups,
    resolver,
    chargeCpu: (client, cpuMs, pages) => {
      const key = chargedClient(client);
      if (key !== null) limiter.chargeCpu(key, cpuMs, pages);
    },
    async close(options) {
      await (options?.cut ? agent.destroy() : agent.close());
      if (!deps.resolver) resolver.close();
    },
  };
}

/** Only policy.CALLER_HEADERS may be added by our own code; anything else is a bug that could leak a client header. */
function callerHeaders(extra: Record<string, string> | undefined): Record<string, string> {
  if (!extra) return {};
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra)) {
    const lower = name.toLowerCase();
    if (!CALLER_HEADERS.has(lower)) throw new TypeError(`safeFetch: header "${name}" may not be sent upstream`);
    out[lower] = value;
  }
  return out;
}

/**
 * A hop refused by the URL policy: one that names a private or local host reads like any site
 * that cannot be reached (the API never tells private from public); a scheme, credentials or a
 * blocked port is a redirect that cannot be followed.
 */
function refusedTarget(problem: string) {
  return /private|localhost/.test(problem) ? failures.unreachable() : failures.badRedirect();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
