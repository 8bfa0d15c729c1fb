// An optional retry of an answer that says "later": 429 (the rate limit) and 503 (the service is
// busy) carry Retry-After, and a retry made before it ends only meets the same answer. Off by
// default: a retry is more load on a service that just said it has too much, and a caller may
// rather fail fast; `createClient({ baseUrl, fetch: withRetry() })` turns it on (and a bundle
// without it carries none of this file). The wait is
// Retry-After plus a random jitter, so that clients told the same second do not all come back in
// that same second; a wait longer than `maxDelayMs`, or a request whose signal is aborted, ends
// the retries and gives the last answer.

/** The statuses whose Retry-After is honoured. */
const RETRIED = new Set([429, 503]);

export interface RetryOptions {
  /** Retries after the first answer, at most (default 2). */
  attempts?: number;
  /** The longest wait accepted, in ms (default 10 000): an answer asking for more is returned as it is. */
  maxDelayMs?: number;
  /** Up to this many ms are added at random to each wait (default 250). */
  jitterMs?: number;
}

/** How the retry waits and draws its jitter: the browser's and Node's own, unless a test passes others. */
export interface RetryClock {
  wait(ms: number, signal: AbortSignal | null | undefined): Promise<void>;
  random(): number;
}

const realClock: RetryClock = {
  wait: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', abort);
        resolve();
      }, ms);
      const abort = () => {
        clearTimeout(timer);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', abort, { once: true });
    }),
  random: Math.random,
};

/** Retry-After as milliseconds: delay-seconds, or an HTTP-date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** A fetch that retries 429 and 503 answers after their Retry-After, as `options` allow. */
export function retryingFetch(fetchImpl: typeof fetch, options: RetryOptions = {}, clock: RetryClock = realClock): typeof fetch {
  const { attempts = 2, maxDelayMs = 10_000, jitterMs = 250 } = options;
  return async (input, init) => {
    // A Request's body can be read once: each attempt sends a copy.
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImpl(request.clone());
      if (attempt >= attempts || !RETRIED.has(response.status)) return response;
      const after = retryAfterMs(response.headers.get('retry-after'));
      if (after === null || after > maxDelayMs || request.signal.aborted) return response;
      // The answer is dropped: its connection is free for the next attempt.
      await response.body?.cancel();
      await clock.wait(after + Math.floor(clock.random() * jitterMs), request.signal);
    }
  };
}

/**
 * A fetch for `createClient({ baseUrl, fetch: withRetry({ attempts: 2 }) })`: the global fetch
 * (or `options.fetch`), retrying 429 and 503 answers after their Retry-After plus jitter.
 */
export function withRetry(options: RetryOptions & { fetch?: typeof fetch } = {}): typeof fetch {
  const { fetch: fetchImpl = (input, init) => globalThis.fetch(input, init), ...retry } = options;
  return retryingFetch(fetchImpl, retry);
}
