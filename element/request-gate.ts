// One gate for every card of the page in front of the API's two data paths, which share one
// budget per client (docs/SPEC.md "Limits": 20 requests per 10 s, then a 10 s block). The gate
// spends only what the API says is left (X-RateLimit-Remaining, from the freshest answer, less
// what was sent since), so a page alone never reaches the block: with nothing left it waits for
// X-RateLimit-Reset, when the oldest request leaves the window, and sends one more. Waiting
// requests pass in reading order, the card nearest the top of the page first, and favicons after
// every metadata request and image: on a page of many cards the budget goes to what the reader
// reaches next. A refusal (429 when another tab or a neighbour behind the same address spent the
// budget, or 503 while overloaded) closes the gate for its Retry-After; then one request asks
// what is left before the others follow.

/** What the budget was before any answer: the published limit (docs/SPEC.md "Limits"). */
const PUBLISHED_LIMIT = 20;
/** No wait longer than this, whatever a header says. */
const MAX_WAIT_MS = 30_000;
/** The wait when nothing is left and the API did not say until when (or its clock is behind ours). */
const PROBE_WAIT_MS = 1000;

/** Requests left after the request numbered `informedAt` (by the freshest answer, or the limit). */
let left = PUBLISHED_LIMIT;
let informedAt = 0;
/** Requests sent so far; each is numbered by this count when it passes. */
let sent = 0;
/** Epoch ms before which no request is sent (a refusal's Retry-After, or the budget's reset). */
let closedUntil = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

interface Waiting {
  /** The card (or the first of the cards) the request is for: its place on the page is its turn. */
  card: Element;
  /** 0: metadata and images; 1: favicons, which wait for everything else. */
  rank: number;
  pass: (ticket: number) => void;
}
const waiting: Waiting[] = [];

/** Whether `a` comes before `b`: the lower rank, then the card nearer the top of the page. */
const before = (a: Waiting, b: Waiting) =>
  a.rank < b.rank || (a.rank == b.rank && !!(a.card.compareDocumentPosition(b.card) & Node.DOCUMENT_POSITION_FOLLOWING));

/** Lets through as many waiting requests as the budget allows, first things first; else waits. */
function pump(): void {
  clearTimeout(timer);
  for (;;) {
    if (!waiting.length) return;
    const wait = closedUntil - Date.now();
    if (wait > 0) {
      timer = setTimeout(pump, wait);
      return;
    }
    if (left - (sent - informedAt) <= 0) {
      // Nothing left: the reset has passed (or the API never said), so the oldest request has
      // left the window and one more fits; its answer tells what is left then.
      if (closedUntil) [left, informedAt, closedUntil] = [1, sent, 0];
      else {
        closedUntil = Date.now() + PROBE_WAIT_MS;
        continue;
      }
    }
    const first = waiting.reduce((best, one) => (before(one, best) ? one : best));
    waiting.splice(waiting.indexOf(first), 1);
    first.pass(++sent);
  }
}

/**
 * Reads what the answer to request `ticket` says about the budget; true when it was refused and
 * may be asked again. Retry-After is in seconds or an HTTP-date (RFC 9110 10.2.3), as a proxy in
 * front may send it; 1 s when it has neither.
 */
export function refused(response: Response, ticket: number): boolean {
  const headers = response.headers;
  const status = response.status;
  const retryAfter = headers.get('retry-after');
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = Number(headers.get('x-ratelimit-reset')) * 1000;
  const now = Date.now();
  const refusal = status == 429 || status == 503;
  if (refusal) {
    const until = now + (Number(retryAfter) * 1000 || Date.parse(retryAfter!) - now || PROBE_WAIT_MS);
    [left, informedAt, closedUntil] = [0, sent, Math.max(closedUntil, Math.min(until, now + MAX_WAIT_MS))];
  } else if (ticket > informedAt) {
    // An API that does not count (no header) is not held back; a reset already past is an answer
    // from the browser's cache, or from a clock behind ours: what it says is left is not trusted.
    left = remaining == null ? Infinity : reset > now ? Number(remaining) : 0;
    informedAt = ticket;
    closedUntil = left ? 0 : Math.min(reset, now + MAX_WAIT_MS);
  }
  pump();
  return refusal;
}

/**
 * Resolves with the request's ticket (for `refused`) when it may be sent: at once while the
 * budget lasts, else in its turn; at once too when `signal` aborts (the request then fails).
 */
export function gate(signal: AbortSignal, card: Element, rank = 0): Promise<number> {
  return new Promise((pass) => {
    const entry: Waiting = { card, rank, pass };
    waiting.push(entry);
    signal.addEventListener('abort', () => {
      const at = waiting.indexOf(entry);
      if (at < 0) return;
      waiting.splice(at, 1);
      pass(0);
    });
    pump();
  });
}
