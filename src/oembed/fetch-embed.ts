// Asking one oEmbed endpoint. Through safeFetch like every upstream fetch (the address guard
// on every hop, redirects re-checked, the resolver, the fair slots, the deadline), stopped by the
// caller's signal (the enrichment budget). The answer is read only when it says it is JSON, at
// most OEMBED_MAX_BYTES of it, parsed in a try and cleaned field by field (embed-fields.ts).
// Never throws: an endpoint that fails in any way gives no embed.

import type { SafeFetch, SafeFetchResponse } from '../fetch/types.js';
import { mediaTypeEssence } from '../media-type.js';
import { normalizeEmbed, type OEmbed } from './embed-fields.js';

/**
 * Bytes of an oEmbed answer read at most. Answers are small JSON objects (a few KB, the markup
 * of a rich embed included); a longer one is not read further and gives no embed.
 */
const OEMBED_MAX_BYTES = 64 * 1024;

const OEMBED_ACCEPT = 'application/json';

/**
 * Content types read as JSON: application/json, a structured +json type (RFC 6839), and the two
 * types a page's discovery link declares, which a provider may label its answer with too.
 * Anything else (an HTML error page, text/plain, XML oEmbed) is not read.
 */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json+oembed', 'text/json+oembed']);

export interface EmbedFetchDeps {
  safeFetch: SafeFetch;
  /** The enrichment budget: aborting it ends the fetch at once. */
  signal?: AbortSignal;
  /** The client the fetch is done for (SafeFetchOptions.client). */
  client?: string;
}

/** The embed `endpoint` answers with, or null for any failure. */
export async function fetchEmbed(endpoint: URL, { safeFetch, signal, client }: EmbedFetchDeps): Promise<OEmbed | null> {
  let res: SafeFetchResponse;
  try {
    res = await safeFetch(endpoint, { accept: OEMBED_ACCEPT, maxBytes: OEMBED_MAX_BYTES, signal, client });
  } catch {
    return null;
  }
  try {
    if (res.status !== 200 || !isJson(res.headers['content-type'])) return null;
    const chunks: Uint8Array[] = [];
    for await (const chunk of res.body) chunks.push(chunk);
    // Cut at the cap: the JSON is incomplete, and an answer that long is no oEmbed answer.
    if (res.truncated) return null;
    let answer: unknown;
    try {
      answer = JSON.parse(new TextDecoder().decode(Buffer.concat(chunks)));
    } catch {
      return null;
    }
    return normalizeEmbed(answer);
  } catch {
    // The deadline or the budget ran out while reading.
    return null;
  } finally {
    res.close();
  }
}

function isJson(contentType: string | undefined): boolean {
  const essence = mediaTypeEssence(contentType);
  return essence !== null && (JSON_TYPES.has(essence) || /^application\/[^/]+\+json$/.test(essence));
}
