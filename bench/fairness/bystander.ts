// The bystander: one client address of its own (127.3.0.1) asking at a steady pace, whatever
// happens to its earlier requests, for new pages on the ordinary sites (uncached) and for pages
// it was answered before (cached), two uncached for one cached.

import { get, metadataUrl } from './client.js';

export interface Sample {
  kind: 'uncached' | 'cached';
  /** performance.now() when it was sent. */
  sentAt: number;
  status: number;
  ms: number;
  /** LinkPeek's Server-Timing for the answer (its steps' milliseconds), when it had one. */
  serverTiming?: string;
  /** Why LinkPeek did not answer 200, from its log line of the request (filled in after the run). */
  reason?: string;
  /** The milliseconds LinkPeek's log line gives the request: from its handler's start to its end (filled in after the run). */
  serviceMs?: number;
  /** The answer's X-Request-Id. */
  requestId?: string;
}

const BYSTANDER = { address: '127.3.0.1' };
/** Another address, for the warm-up before the bystander starts (the answers are cached per URL, not per client). */
const WARMER = { address: '127.3.0.2' };
const TIMEOUT_MS = 20_000;
const PATTERN: Sample['kind'][] = ['uncached', 'uncached', 'cached'];

export interface Site {
  origin: string;
}

/**
 * Asks each site once from another address, so that names, connections and TLS sessions are as
 * warm during the baseline as during the attack, and the bystander has cached answers to ask for.
 * Returns the URLs answered 200.
 */
export async function warmUp(origin: string, sites: Site[], run: string): Promise<string[]> {
  const urls = sites.map((site) => `${site.origin}/warm/${run}`);
  const answers = await Promise.all(urls.map((url) => get(metadataUrl(origin, url), WARMER, TIMEOUT_MS)));
  return urls.filter((_, i) => answers[i]!.status === 200);
}

/**
 * Sends one request every `everyMs` from now until `endAt`; resolves with every sample once the last
 * has ended (each ends within TIMEOUT_MS).
 */
export async function runBystander(origin: string, sites: Site[], cachedPool: string[], run: string, endAt: number, everyMs: number): Promise<Sample[]> {
  const pending: Promise<Sample>[] = [];
  const maxRequests = Math.ceil((endAt - performance.now()) / everyMs) + 1;
  for (let n = 0; n < maxRequests && performance.now() < endAt; n++) {
    const sentAt = performance.now();
    let kind = PATTERN[n % PATTERN.length]!;
    if (kind === 'cached' && cachedPool.length === 0) kind = 'uncached';
    const page = kind === 'cached' ? cachedPool[n % cachedPool.length]! : `${sites[n % sites.length]!.origin}/story/${run}-${n}`;
    pending.push(
      get(metadataUrl(origin, page), BYSTANDER, TIMEOUT_MS).then((res) => {
        if (kind === 'uncached' && res.status === 200) cachedPool.push(page);
        const { serverTiming, requestId } = res;
        return {
          kind,
          sentAt,
          status: res.status,
          ms: res.ms,
          ...(serverTiming === undefined ? {} : { serverTiming }),
          ...(requestId === undefined ? {} : { requestId }),
        };
      }),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, sentAt + everyMs - performance.now())));
  }
  return Promise.all(pending);
}
