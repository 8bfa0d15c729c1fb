// The resolver every upstream name goes through. dns.lookup runs getaddrinfo on libuv's thread
// pool (4 threads shared with zlib and fs) with no deadline and no cache, so a few names whose
// nameserver never answers stall every lookup of the instance, page fetches included. This one
// asks c-ares (dns.promises.Resolver: its own UDP/TCP sockets on the event loop) for A and AAAA
// with their TTLs, gives each name one deadline, keeps answers for their TTL within DNS_CACHE's
// bounds, remembers failures briefly, and sends one query per name however many requests need it.
// It answers names only: whether an address may be dialled is the guard's call (address.ts).

import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import { ipLiteral } from '../ip-literal.js';
import { DnsWindow } from './dns-window.js';
import { dnsError, isLocalhost, isValidName, outcomeOf, settle, type DnsError, type DnsOutcome, type Settled } from './dns-answers.js';

export type { DnsOutcome } from './dns-answers.js';

/** How long answers are kept and how much the resolver holds, with the reason for each bound. */
export const DNS_CACHE = {
  /** A TTL of 0 would send a query per request; a second is enough to share one across a burst. */
  minTtlMs: 1_000,
  /** Above 10 minutes an operator's DNS change would take too long to reach us. */
  maxTtlMs: 600_000,
  /** NXDOMAIN, no address, SERVFAIL, REFUSED and timeouts: long enough that a failing host costs one deadline, not one per request. */
  failureTtlMs: 30_000,
  /** Names kept (least recently used go first): a public API is sent endless hostile names. */
  maxNames: 10_000,
  /** Addresses kept per name (hundreds of records serve no purpose but to cost memory and connect attempts). */
  maxAddresses: 32,
  /** Distinct names asked at once; past it a lookup fails with EDNSOVERLOAD at once (our saturation, not the name's fault). */
  maxPending: 1_000,
  /** Once one family has answered, how long to wait for the other (RFC 8305 "Resolution Delay"). */
  otherFamilyWaitMs: 50,
} as const;

/**
 * The code of a lookup that failed because of our nameservers, not the name: none could be
 * reached (c-ares' ECONNREFUSED: nothing listens at DNS_SERVERS), or the name timed out while
 * the nameservers answered no query of the last 20 s (dns-window.ts nameserversSilent: while
 * they answer others, a silent name is the name's own failure, however many an attacker sends).
 * The caller is told the resolver failed (failure-reasons.ts), not the site.
 */
export const RESOLVER_UNAVAILABLE = 'EDNSUNAVAILABLE';
/** How a lookup was served: from the cache (an answer or a remembered failure), by a new query, or by one already in flight. */
export type DnsCacheResult = 'hit' | 'negative_hit' | 'miss' | 'coalesced';

interface DnsObserver {
  onQuery?(outcome: DnsOutcome, seconds: number): void;
  onCache?(result: DnsCacheResult): void;
}

export interface ResolverOptions {
  /** Deadline of one lookup (A and AAAA together), DNS_TIMEOUT_MS. */
  timeoutMs: number;
  /** host[:port] entries (IPv6 in brackets); null: the system's resolvers (/etc/resolv.conf). */
  servers: readonly string[] | null;
  observer?: DnsObserver;
  /** Distinct names asked at once (default DNS_CACHE.maxPending). */
  maxPending?: number;
  now?: () => number; // the clock of the answers' lifetimes (ms), performance.now by default; tests drive it
}

type Entry = { addresses: LookupAddress[] } | { code: string };

/**
 * How upstream names are resolved: what safeFetch, its connector, the lookup slots, Safe
 * Browsing's client and /healthz need of a resolver. DnsResolver is the service's; a caller (a
 * test, an embedding program) may pass its own.
 */
export interface Resolver {
  /** The lookup net.connect calls at connect time; the address guard judges its answers. */
  readonly lookup: LookupFunction;
  /** Resolves `hostname` ahead of the connection (its time is the fetch's DNS time). */
  resolve(hostname: string): Promise<LookupAddress[]>;
  /** True when resolve() would answer at once: no lookup slot is needed. */
  answersAtOnce(hostname: string): boolean;
  /** Outcomes of recent queries, for /healthz. */
  readonly recent: DnsWindow;
  readonly cachedNames: number;
  close(): void;
}

export class DnsResolver implements Resolver {
  /** Outcomes of the last 20 s of queries, for /healthz. */
  readonly recent = new DnsWindow();
  private readonly channel: dns.promises.Resolver;
  private readonly cache: LRUCache<string, Entry>;
  private readonly pending = new Map<string, Promise<LookupAddress[]>>();
  private closed = false;

  constructor(private readonly options: ResolverOptions) {
    this.cache = new LRUCache({ max: DNS_CACHE.maxNames, ttlAutopurge: false, ...(options.now && { perf: { now: options.now }, ttlResolution: 0 }) });
    // c-ares retries once on a timeout (a dropped UDP packet is common) and doubles the wait, so
    // the two tries fit the deadline: t + 2t = timeoutMs. The deadline below is the hard stop.
    this.channel = new dns.promises.Resolver({ timeout: Math.max(1, Math.floor(options.timeoutMs / 3)), tries: 2 });
    if (options.servers) this.channel.setServers([...options.servers]);
  }

  get cachedNames(): number {
    return this.cache.size;
  }

  /**
   * True when resolve() would answer `hostname` at once, without a query: an IP literal,
   * localhost, or a name whose answer (or failure) is cached. A peek: the cache's order is kept.
   */
  answersAtOnce(hostname: string): boolean {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return ipLiteral(name) !== null || isLocalhost(name) || this.cache.has(name);
  }

  /** The addresses of `hostname` (IPv4 first), or a DnsError. */
  resolve(hostname: string): Promise<LookupAddress[]> {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const literal = ipLiteral(name);
    if (literal !== null) return Promise.resolve([{ address: literal, family: literal.includes(':') ? 6 : 4 }]);
    // RFC 6761 6.3: localhost is this machine whatever a nameserver says (the guard refuses it
    // unless private networks are allowed); c-ares does not read /etc/hosts.
    if (isLocalhost(name)) {
      return Promise.resolve([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    }
    if (!isValidName(name)) return Promise.reject(dnsError('EBADNAME', hostname));

    const cached = this.cache.get(name);
    if (cached) {
      this.options.observer?.onCache?.('addresses' in cached ? 'hit' : 'negative_hit');
      return 'addresses' in cached ? Promise.resolve(cached.addresses) : Promise.reject(dnsError(cached.code, hostname));
    }
    const inFlight = this.pending.get(name);
    if (inFlight) {
      this.options.observer?.onCache?.('coalesced');
      return inFlight;
    }
    if (this.closed) return Promise.reject(dnsError('ECANCELLED', hostname));
    if (this.pending.size >= (this.options.maxPending ?? DNS_CACHE.maxPending)) return Promise.reject(dnsError('EDNSOVERLOAD', hostname));

    this.options.observer?.onCache?.('miss');
    const query = this.query(name).finally(() => this.pending.delete(name));
    this.pending.set(name, query);
    return query;
  }

  /** resolve() in the shape net.connect and undici's connector call (`all: true` or one address). */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const opts: LookupOptions = typeof options === 'object' && options !== null ? options : {};
    const done = typeof options === 'function' ? (options as typeof callback) : callback;
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : opts.family;
    this.resolve(hostname).then(
      (addresses) => {
        const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        // Called outside the promise chain, so an exception in the caller is not turned into a rejection.
        process.nextTick(() => {
          if (wanted.length === 0) return done(dnsError('ENODATA', hostname), '', 0);
          if (opts.all) return done(null, wanted);
          return done(null, wanted[0]!.address, wanted[0]!.family);
        });
      },
      (err: DnsError) => process.nextTick(() => done(err, '', 0)),
    );
  };

  /** Cancels queries in flight (they fail with ECANCELLED) and forgets every answer. */
  close(): void {
    this.closed = true;
    this.channel.cancel();
    this.cache.clear();
  }

  /** Asks A and AAAA at once, within the deadline; caches the result, answer or failure. */
  private async query(name: string): Promise<LookupAddress[]> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(dnsError('ETIMEOUT', name)), this.options.timeoutMs);
    });
    try {
      const answer = await Promise.race([this.bothFamilies(name), deadline]);
      this.cache.set(name, { addresses: answer.addresses }, { ttl: answer.ttlMs });
      this.observe('answered', started);
      return answer.addresses;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      this.observe(outcomeOf(typeof code === 'string' ? code : 'EDNSFAILED'), started);
      const ours = code === 'ECONNREFUSED' || (code === 'ETIMEOUT' && this.recent.nameserversSilent);
      const failure = dnsError(ours ? RESOLVER_UNAVAILABLE : typeof code === 'string' ? code : 'EDNSFAILED', name);
      if (code !== 'ECANCELLED') this.cache.set(name, { code: failure.code }, { ttl: DNS_CACHE.failureTtlMs });
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  private async bothFamilies(name: string): Promise<{ addresses: LookupAddress[]; ttlMs: number }> {
    const v4 = settle(this.channel.resolve4(name, { ttl: true }));
    const v6 = settle(this.channel.resolve6(name, { ttl: true }));
    const first = await Promise.race([v4, v6]);
    const late: Settled = { records: [] }; // the other family, given up after the short wait
    const patience = (p: Promise<Settled>) => Promise.race([p, new Promise<Settled>((r) => setTimeout(r, DNS_CACHE.otherFamilyWaitMs, late).unref())]);
    const [four, six] = 'records' in first && first.records.length > 0 ? await Promise.all([patience(v4), patience(v6)]) : await Promise.all([v4, v6]);

    const records = [
      ...('records' in four ? four.records.map((r) => ({ ...r, family: 4 })) : []),
      ...('records' in six ? six.records.map((r) => ({ ...r, family: 6 })) : []),
    ];
    if (records.length === 0) {
      // An answer without addresses (a CNAME chain that ends nowhere, a loop) is ENODATA. Of two
      // failures the IPv4 one speaks for the name, unless it only says "no A record".
      const a = 'error' in four ? four.error : null;
      const aaaa = 'error' in six ? six.error : null;
      throw a && (a.code !== 'ENODATA' || !aaaa) ? a : (aaaa ?? dnsError('ENODATA', name));
    }
    const kept = records.slice(0, DNS_CACHE.maxAddresses);
    const ttlS = Math.min(...kept.map((r) => r.ttl));
    return {
      addresses: kept.map(({ address, family }) => ({ address, family })),
      ttlMs: Math.min(DNS_CACHE.maxTtlMs, Math.max(DNS_CACHE.minTtlMs, ttlS * 1000)),
    };
  }

  private observe(outcome: DnsOutcome, started: number): void {
    this.recent.record(outcome === 'timeout', outcome === 'unreachable');
    this.options.observer?.onQuery?.(outcome, (performance.now() - started) / 1000);
  }
}
