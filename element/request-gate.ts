// One gate for every card of the page in front of the API's two data paths, which share one
// budget per client (docs/SPEC.md "Limits": 20 requests per 10 s, then a 10 s block). A refusal
// (429, or 503 while overloaded) closes it for its Retry-After; an answer that leaves no budget
// closes it until X-RateLimit-Reset, so the next request does not start a block. Each waiting
// request passes at its own random moment in the second after the gate opens: the waiting cards
// do not come back all at once, in one wave that the budget would refuse again.

/** Epoch ms before which no request is sent. */
let closedUntil = 0;

/** The spread of the waiting requests after the gate opens (ms). */
const JITTER_MS = 1000;
/** No wait longer than this, whatever a header says. */
const MAX_WAIT_MS = 30_000;

/**
 * Reads what `response` says about the budget; true when it was refused and may be asked again.
 * Retry-After is in seconds or an HTTP-date (RFC 9110 10.2.3), as a proxy in front may send it; 1 s
 * when it has neither.
 */
export function refused(response: Response): boolean {
  const headers = response.headers;
  const status = response.status;
  const retryAfter = headers.get('retry-after');
  const reset = headers.get('x-ratelimit-reset');
  const until =
    status == 429 || status == 503
      ? Date.now() + (Number(retryAfter) * 1000 || Date.parse(retryAfter!) - Date.now() || 1000)
      : headers.get('x-ratelimit-remaining') == '0' && Number(reset) * 1000;
  if (until) closedUntil = Math.max(closedUntil, Math.min(until, Date.now() + MAX_WAIT_MS));
  return status == 429 || status == 503;
}

/** Resolves when the gate is open (at once when it is), or when `signal` aborts. */
export async function gate(signal: AbortSignal): Promise<void> {
  // Closed again while this one waited (another card was refused): wait again.
  for (let wait; (wait = closedUntil - Date.now()) > 0 && !signal.aborted;)
    await new Promise((done) => {
      setTimeout(done, wait + Math.random() * JITTER_MS);
      signal.addEventListener('abort', done);
    });
}
