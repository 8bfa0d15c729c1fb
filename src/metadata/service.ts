// The metadata pipeline (docs/ARCHITECTURE.md): safeFetch → charset + head scan → rules →
// enrichment within a budget, all within one request deadline. Both preferences are built from
// one fetch, so prefer=og and prefer=twitter share it. What is kept, shared and for how long is
// the cache's business (src/cache/cached-metadata.ts), not this pipeline's.

import type { Metadata } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { type Clock, scanHead, type ScanTurns } from '../../wasm-parser/index.js';
import type { Config } from '../config.js';
import { FetchFailed, Overloaded } from '../errors.js';
import { chargedClient } from '../fetch/charge.js';
import { failures, type FetchFailure } from '../failure-reasons.js';
import { readPrefix } from '../fetch/read-prefix.js';
import type { SafeFetch } from '../fetch/types.js';
import { SNIFF_BYTES, sniffImage } from '../images/sniff.js';
import { isHtmlMediaType, mediaTypeEssence } from '../media-type.js';
import { emptyMetadata, extractBoth } from './extract.js';
import type { RequestTiming } from './service-types.js';
import { mayBeChallengePage, refuseWalls } from '../walls/detect.js';
import { RequestDeadline } from './request-deadline.js';
import type { RecentScanTimes } from './scan-times.js';
import { hostsOf, runEnrichers } from './run-enrichers.js';

/** What an enricher sees and may fill in: both variants of one page, before they are cached. */
export interface EnrichmentInput {
  target: URL;
  /** The IP of the client whose request started this extraction: its fetches are charged to it. */
  client: string | undefined;
  /** The final URL after redirects. */
  finalUrl: URL;
  /** The page's head tags; null for a response that is not HTML. */
  tags: RawTags | null;
  og: Metadata;
  twitter: Metadata;
}

/**
 * A step that adds to a fresh extraction (image and favicon probes, safety tags). It must stop
 * when `signal` aborts (the enrichment budget, ENRICH_BUDGET_MS); whatever it set by then stays.
 */
export type Enricher = (input: EnrichmentInput, signal: AbortSignal) => Promise<void>;

/** Both preferences of one page. */
export interface Extracted {
  og: Metadata;
  twitter: Metadata;
}

/**
 * Extracts the page at `target` on behalf of the client at IP `client` (its fair share of fetch
 * slots); throws FetchFailed / FetchTimeout / Overloaded. `timing` hears how long each step took.
 */
export type MetadataPipeline = (target: URL, client?: string, timing?: RequestTiming) => Promise<Extracted>;

export interface MetadataPipelineDeps {
  config: Config;
  safeFetch: SafeFetch;
  enrichers?: Enricher[];
  /** Told of an enricher that failed (the extraction is still answered). */
  onEnricherError?: (err: unknown) => void;
  /**
   * Told the host of each image and icon URL as the scanner reaches it, before the head ends, so
   * its lookup runs while the rest of the head downloads (the probes find it answered); charged
   * to `client`, the IP of the client whose request started the extraction.
   */
  prefetchHost?: (hostname: string, client: string | undefined) => void;
  /**
   * Whether a page that failed this way may still be answered from its oEmbed provider
   * (docs/ARCHITECTURE.md "oEmbed"): then it is enriched as a page with nothing to read, and
   * answered if an enricher filled `embed`; otherwise the page's failure stands.
   */
  embedStandsIn?: (target: URL, failure: FetchFailure) => boolean;
  /**
   * Told what scanning a page costs, in milliseconds, with the client whose request fetched it (a
   * client whose pages are costly can be given a smaller share): the head scan's time so far before
   * each turn of the event loop it waits for and when it ends (both charset passes), then the rules
   * after it (with `pages` 1: the page's scan has ended).
   */
  onScanCost?: (client: string | undefined, cpuMs: number, pages?: number) => void;
  /**
   * Whether the client's page is refused before it is fetched, and again before it is scanned
   * (Overloaded, 503): the engine's rule is src/engine/costly-pages.ts.
   */
  refusesPage?: (client: string | undefined) => boolean;
  /** Keeps each scan's time for /healthz (scan-times.ts). */
  scanTimes?: RecentScanTimes;
  /** The scan budget's clock, wall and CPU time alike (tests drive it); the scanner's own by default. */
  scanClock?: Clock;
  /** The turns the head scans take, the cheapest client's first (wasm-parser/scan-turns.ts). */
  scanTurns?: ScanTurns;
  /**
   * The work a scan for the client may do before its first yield (ScanBudgetOptions.firstSliceMs;
   * the engine's rule is src/engine/costly-pages.ts); SLICE_MS without it.
   */
  firstSliceMs?: (client: string | undefined) => number;
}

export function createMetadataPipeline(deps: MetadataPipelineDeps): MetadataPipeline {
  const { config } = deps;

  /** The page's extraction or, for a failure its oEmbed answer may stand in for, the object of a page with nothing to read. */
  async function fetchOrStandIn(target: URL, client: string | undefined, timing: RequestTiming | undefined, deadline: RequestDeadline) {
    try {
      return { fresh: await fetchAndExtract(target, client, deps, deadline.signal, timing), failed: null };
    } catch (caught) {
      // A fetch or scan the deadline cut short fails as a timeout, whatever error the cut raised.
      const err = deadline.explain(caught);
      if (!(err instanceof FetchFailed) || !err.pageFailure || !deps.embedStandsIn?.(target, err.failure)) throw err;
      const fresh: EnrichmentInput = { target, client, finalUrl: target, tags: null, og: emptyMetadata(target), twitter: emptyMetadata(target) };
      return { fresh, failed: err };
    }
  }

  return async function extract(target, client, timing) {
    const deadline = new RequestDeadline(config.requestDeadlineMs);
    try {
      const { fresh, failed } = await fetchOrStandIn(target, client, timing, deadline);
      const enriching = performance.now();
      const allSettled = await runEnrichers(fresh, deps, Math.min(config.enrichBudgetMs, deadline.remainingMs()));
      timing?.step('enrich', performance.now() - enriching);
      // An enricher that overran the budget must not change what is answered and kept: then the
      // answer is a copy. When every enricher has settled, nothing can touch the objects again.
      const [og, twitter] = allSettled ? [fresh.og, fresh.twitter] : [structuredClone(fresh.og), structuredClone(fresh.twitter)];
      // A failed page answered for its oEmbed alone: without an embed, the page's failure stands.
      if (failed && og.embed === null) throw failed;
      return { og, twitter };
    } finally {
      deadline.clear();
    }
  };
}

async function fetchAndExtract(
  target: URL,
  client: string | undefined,
  deps: MetadataPipelineDeps,
  signal: AbortSignal,
  timing?: RequestTiming,
): Promise<EnrichmentInput> {
  const { config, safeFetch, prefetchHost } = deps;
  refuseCostlyPage(client, deps); // before its fetch is paid for
  const fetching = performance.now();
  const res = await safeFetch(target, { maxBytes: config.maxPageBytes, client, signal });
  const scanning = performance.now();
  timing?.step('dns', res.timings?.dnsMs);
  timing?.step('connect', res.timings?.connectMs);
  timing?.step('fetch', scanning - fetching);
  try {
    const contentType = res.headers['content-type'] ?? '';
    const finalUrl = res.url;
    // A bot check or a consent page is a failure, not a preview (src/walls), whatever its status.
    const answer = { status: res.status, headers: res.headers, url: finalUrl, tags: null };
    refuseWalls(target, answer);
    if (res.status < 200 || res.status >= 300) {
      if (isHtmlMediaType(contentType) && mayBeChallengePage(res.status))
        refuseWalls(target, { ...answer, tags: await headOfErrorPage(res.body, contentType, deps) });
      throw new FetchFailed(`upstream status ${res.status}`, { failure: failures.httpStatus(res.status) });
    }
    const options = { requestedUrl: target, contentLanguage: res.headers['content-language'] ?? null };

    if (isHtmlMediaType(contentType)) {
      refuseCostlyPage(client, deps); // and again after the fetch: the client may have become costly meanwhile
      let scanMs = 0;
      // safeFetch's chunks are fresh buffers from the socket or the decoder, never reused.
      const scan = await scanHead(res.body, {
        ...scanBudget(deps),
        contentType,
        retainChunks: true,
        onImageUrl: prefetchHost && hostsOf(finalUrl, (host) => prefetchHost(host, client)),
        onScanTime: (ms) => (scanMs = ms),
        // Charged turn by turn, so a client's share shrinks while its costly scans still run.
        onCharge: (ms) => deps.onScanCost?.(client, ms),
        turns: deps.scanTurns,
        client: chargedClient(client) ?? '',
        firstSliceMs: deps.firstSliceMs?.(client),
        signal,
      });
      const ruling = performance.now();
      timing?.step('scan', ruling - scanning);
      if (scan.bytesConsumed === 0) throw new FetchFailed('empty body', { failure: failures.emptyPage() });
      refuseWalls(target, { ...answer, tags: scan.tags });
      const both = extractBoth(scan.tags, finalUrl, options);
      const rulesMs = performance.now() - ruling;
      deps.scanTimes?.record(scanMs + rulesMs, scan.overBudget === true);
      deps.onScanCost?.(client, rulesMs, 1); // the scan itself was charged as it ran
      return { target, client, finalUrl, tags: scan.tags, ...both };
    }

    // docs/SPEC.md Metadata rule 2: not HTML, still the normalized object. An image URL describes
    // itself in `image`; other types get nulls and the /favicon.ico fallback.
    const { head } = await readPrefix(res.body, SNIFF_BYTES);
    timing?.step('scan', performance.now() - scanning);
    if (head.length === 0) throw new FetchFailed('empty body', { failure: failures.emptyPage() });
    const sniffed = mediaTypeEssence(contentType)?.startsWith('image/') ? sniffImage(head) : null;
    const make = (): Metadata => {
      const meta = emptyMetadata(finalUrl, options);
      if (sniffed) meta.image = { url: finalUrl.href, type: sniffed.type, width: sniffed.width, height: sniffed.height, size: null };
      return meta;
    };
    return { target, client, finalUrl, tags: null, og: make(), twitter: make() };
  } finally {
    res.close();
  }
}

/**
 * Overloaded (503, Retry-After) for a client whose scan would wait behind others' (refusesPage):
 * at once, rather than after a wait for a turn that would likely outlast the request's deadline,
 * holding its connection meanwhile.
 */
function refuseCostlyPage(client: string | undefined, deps: MetadataPipelineDeps): void {
  if (deps.refusesPage?.(client)) throw new Overloaded("head scans are crowded and this client's page would queue behind them");
}

/** The scan's time budget (SCAN_BUDGET_MS), on the injected clock when there is one. */
function scanBudget({ config, scanClock }: MetadataPipelineDeps) {
  return { budgetMs: config.scanBudgetMs, clock: scanClock, cpuClock: scanClock };
}

/** The head of an error page, read for bot-check markers; null when it cannot be read (the status stands). */
async function headOfErrorPage(body: AsyncIterable<Uint8Array>, contentType: string, deps: MetadataPipelineDeps): Promise<RawTags | null> {
  try {
    return (await scanHead(body, { ...scanBudget(deps), contentType, retainChunks: true })).tags;
  } catch {
    return null;
  }
}
