// The metadata pipeline (docs/ARCHITECTURE.md), on one screen: fetch → walls → scan → rules →
// enrich, within one request deadline. Scan and rules run together in a scan worker
// (src/scan/scan-pool.ts); everything else here waits on the network. Both preferences are built
// from one fetch, so prefer=og and prefer=twitter share it. What is kept, shared and for how long
// is the cache's business (src/cache/cached-metadata.ts).

import type { Metadata } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';
import type { Config } from '../config.js';
import { FetchFailed } from '../errors.js';
import { chargedClient } from '../fetch/charge.js';
import { failures, type FetchFailure } from '../failure-reasons.js';
import { readPrefix } from '../fetch/read-prefix.js';
import type { SafeFetch, SafeFetchResponse } from '../fetch/types.js';
import { SNIFF_BYTES, sniffImage } from '../images/sniff.js';
import { isHtmlMediaType, mediaTypeEssence } from '../media-type.js';
import { emptyMetadata } from '../metadata/extract.js';
import { type Enricher, type EnrichmentInput, runEnrichers } from '../metadata/enrichment.js';
import type { MetadataPipeline, RequestTiming } from '../metadata/service-types.js';
import { HeadBytes, scanAsRead } from '../scan/head-bytes.js';
import type { PageScan } from '../scan/page-scan.js';
import type { PageScanner } from '../scan/scan-pool.js';
import type { RecentScanTimes } from '../scan/scan-times.js';
import { mayBeChallengePage, refuseWalls } from '../walls/detect.js';
import { RequestDeadline } from './request-deadline.js';

export interface MetadataPipelineDeps {
  config: Config;
  safeFetch: SafeFetch;
  /** Where pages are scanned: a pool of threads, or inline. */
  scanner: PageScanner;
  enrichers?: Enricher[];
  /** Told of an enricher that failed (the extraction is still answered). */
  onEnricherError?: (err: unknown) => void;
  /**
   * Whether a page that failed this way may still be answered from its oEmbed provider
   * (docs/ARCHITECTURE.md "oEmbed"): then it is enriched as a page with nothing to read, and
   * answered if an enricher filled `embed`; otherwise the page's failure stands.
   */
  embedStandsIn?: (target: URL, failure: FetchFailure) => boolean;
  /** Keeps each scan's time for /healthz. */
  scanTimes?: RecentScanTimes;
  /**
   * Admits a page for a client (its key) before any work is done for it, and returns what ends
   * it; throws Overloaded past capacity (fairness/load-shedder.ts). None: every page is admitted.
   */
  admit?: (client: string | null) => () => void;
}

/** One extraction's context: what it is for, on whose behalf, and until when. */
interface Extraction {
  target: URL;
  /** The IP of the client whose request started it: its fetches and scans are charged to it. */
  client: string | undefined;
  deadline: RequestDeadline;
  timing: RequestTiming | undefined;
}

export function createMetadataPipeline(deps: MetadataPipelineDeps): MetadataPipeline {
  const { config } = deps;
  return async function extract(target, client, timing) {
    const admitted = deps.admit?.(chargedClient(client));
    const extraction: Extraction = { target, client, deadline: new RequestDeadline(config.requestDeadlineMs), timing };
    try {
      const { page, failed } = await readOrStandIn(extraction, deps);
      const enriching = performance.now();
      const allSettled = await runEnrichers(page, deps, Math.min(config.enrichBudgetMs, extraction.deadline.remainingMs()));
      timing?.step('enrich', performance.now() - enriching);
      // An enricher that overran the budget must not change what is answered and kept: then the
      // answer is a copy. When every enricher has settled, nothing can touch the objects again.
      const [og, twitter] = allSettled ? [page.og, page.twitter] : [structuredClone(page.og), structuredClone(page.twitter)];
      // A failed page answered for its oEmbed alone: without an embed, the page's failure stands.
      if (failed && og.embed === null) throw failed;
      return { og, twitter };
    } finally {
      extraction.deadline.clear();
      admitted?.();
    }
  };
}

/** The page read or, for a failure its oEmbed answer may stand in for, the object of a page with nothing to read. */
async function readOrStandIn(extraction: Extraction, deps: MetadataPipelineDeps): Promise<{ page: EnrichmentInput; failed: FetchFailed | null }> {
  const { target, client } = extraction;
  try {
    return { page: await readPage(extraction, deps), failed: null };
  } catch (caught) {
    // A fetch or scan the deadline cut short fails as a timeout, whatever error the cut raised:
    // a head the network did not finish sending is never answered, nor cached, as the page.
    const err = extraction.deadline.explain(caught);
    if (!(err instanceof FetchFailed) || !err.pageFailure || !deps.embedStandsIn?.(target, err.failure)) throw err;
    const page: EnrichmentInput = { target, client, finalUrl: target, tags: null, og: emptyMetadata(target), twitter: emptyMetadata(target) };
    return { page, failed: err };
  }
}

/** Fetch, walls, then scan and rules (HTML) or the first bytes (anything else). */
async function readPage(extraction: Extraction, deps: MetadataPipelineDeps): Promise<EnrichmentInput> {
  const { target, client, timing } = extraction;
  const fetching = performance.now();
  const res = await deps.safeFetch(target, { maxBytes: deps.config.maxPageBytes, client, signal: extraction.deadline.signal });
  timing?.step('dns', res.timings?.dnsMs);
  timing?.step('connect', res.timings?.connectMs);
  timing?.step('fetch', performance.now() - fetching);
  try {
    const contentType = res.headers['content-type'] ?? '';
    const finalUrl = res.url;
    // A bot check or a consent page is a failure, not a preview (src/walls), whatever its status.
    const answer = { status: res.status, headers: res.headers, url: finalUrl, tags: null };
    refuseWalls(target, answer);
    if (res.status < 200 || res.status >= 300) {
      if (isHtmlMediaType(contentType) && mayBeChallengePage(res.status)) {
        refuseWalls(target, { ...answer, tags: await headOfErrorPage(res, extraction, deps) });
      }
      throw new FetchFailed(`upstream status ${res.status}`, { failure: failures.httpStatus(res.status) });
    }
    if (!isHtmlMediaType(contentType)) return await describeNonHtml(res, extraction);

    const scanning = performance.now();
    const scan = await scanHead(res, extraction, deps);
    const scanMs = performance.now() - scanning;
    timing?.step('scan', scanMs);
    deps.scanTimes?.record(scanMs, scan.markupLimit);
    if (scan.bytesConsumed === 0) throw new FetchFailed('empty body', { failure: failures.emptyPage() });
    refuseWalls(target, { ...answer, tags: scan.tags });
    return { target, client, finalUrl, tags: scan.tags, og: scan.og, twitter: scan.twitter };
  } finally {
    res.close();
  }
}

/**
 * The head's bytes as they arrive, scanned (with the rules) once a `<body` has come, or the page
 * ended: the rest is never downloaded. The answer depends on the bytes alone.
 */
async function scanHead(res: SafeFetchResponse, extraction: Extraction, deps: MetadataPipelineDeps): Promise<PageScan> {
  const task = {
    contentType: res.headers['content-type'] ?? '',
    pageUrl: res.url.href,
    requestedUrl: extraction.target.href,
    contentLanguage: res.headers['content-language'] ?? null,
  };
  const client = chargedClient(extraction.client);
  return scanAsRead(new HeadBytes(res.body), (bytes) => deps.scanner.scan({ ...task, bytes }, client, extraction.deadline.signal));
}

/**
 * docs/SPEC.md Metadata rule 2: not HTML, still the normalized object. An image URL describes
 * itself in `image`; other types get nulls and the /favicon.ico fallback.
 */
async function describeNonHtml(res: SafeFetchResponse, { target, client, timing }: Extraction): Promise<EnrichmentInput> {
  const reading = performance.now();
  const { head } = await readPrefix(res.body, SNIFF_BYTES);
  timing?.step('scan', performance.now() - reading);
  if (head.length === 0) throw new FetchFailed('empty body', { failure: failures.emptyPage() });
  const contentType = res.headers['content-type'] ?? '';
  const sniffed = mediaTypeEssence(contentType)?.startsWith('image/') ? sniffImage(head) : null;
  const finalUrl = res.url;
  const options = { requestedUrl: target, contentLanguage: res.headers['content-language'] ?? null };
  const make = (): Metadata => {
    const meta = emptyMetadata(finalUrl, options);
    if (sniffed) meta.image = { url: finalUrl.href, type: sniffed.type, width: sniffed.width, height: sniffed.height, size: null };
    return meta;
  };
  return { target, client, finalUrl, tags: null, og: make(), twitter: make() };
}

/** The head of an error page, read for bot-check markers; null when it cannot be read (the status stands). */
async function headOfErrorPage(res: SafeFetchResponse, extraction: Extraction, deps: MetadataPipelineDeps): Promise<RawTags | null> {
  try {
    return (await scanHead(res, extraction, deps)).tags;
  } catch {
    return null;
  }
}
