// The shape of one upstream fetch as the rest of the service sees it.

export interface SafeFetchOptions {
  /** Accept header (pages: policy.PAGE_ACCEPT; images: their own). */
  accept?: string;
  /** Extra request headers from policy.CALLER_HEADERS only (e.g. range). */
  headers?: Record<string, string>;
  /** Decoded body bytes read at most; past it the body ends early (`truncated` = true). */
  maxBytes: number;
  /** Aborts the whole fetch (client gone, enrichment budget over). */
  signal?: AbortSignal;
  /**
   * The IP address of the client this fetch is done for, whose fair shares of name lookups and
   * fetch slots it uses (lookups.ts, limiter.ts); absent for the service's own fetches. A fetch
   * shared by several clients is charged to the one that started it.
   */
  client?: string;
  /**
   * Once the response headers are in, the body's own deadline in place of what is left of the
   * total one: no gap between two chunks longer than `idleMs`, and the whole body within
   * `totalMs` of the headers. For the image proxy: a slow but steady image is not cut after its
   * first bytes have left (fetch-deadline.ts).
   */
  bodyDeadline?: { idleMs: number; totalMs: number };
}

export interface SafeFetchResponse {
  /** The final URL after redirects. */
  url: URL;
  status: number;
  /** Response headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /**
   * What opening connections cost this fetch, summed over its redirect hops: DNS lookup time and
   * TCP/TLS connect time. Each is null when no hop opened a connection of its own (a pooled one
   * was reused) or, for dnsMs, when no name was resolved (IP literal).
   */
  timings: { dnsMs: number | null; connectMs: number | null };
  /**
   * The decoded body, at most maxBytes. Iterate once. Ends early at the cap; the deadline or an
   * abort surfaces as a thrown FetchTimeout / FetchFailed while iterating.
   * Every chunk is fresh memory, never changed after it was yielded (callers may keep it).
   */
  body: AsyncIterable<Uint8Array>;
  /** True once the body stopped at maxBytes. */
  readonly truncated: boolean;
  /** Decoded bytes read so far. */
  readonly bytesRead: number;
  /** Closes the upstream (stream and slot) at once; idempotent; safe after the body ended. */
  close(): void;
}

export type SafeFetch = (url: URL, options: SafeFetchOptions) => Promise<SafeFetchResponse>;
