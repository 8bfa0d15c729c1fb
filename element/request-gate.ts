// One gate for every card of the page in front of the API's two data paths, which share one
// budget per client (docs/SPEC.md "Limits": 20 requests per 10 s, then a 10 s block). The gate
// sends only what the API says is left (X-RateLimit-Remaining), so a page alone never reaches the
// block: with nothing left it waits for the requests in flight, then for X-RateLimit-Reset, when
// the oldest request leaves the window, and sends one, whose answer says what is left then.
// Requests in flight together may be counted in any order, so an answer says at least what is
// left less the requests that overlapped it (in flight when it was sent, or sent before it was
// answered: each may have been counted after it); one that was alone in flight says it exactly.
// Every such bound holds until the gate sends again, and sending lowers each by one, so the gate
// keeps the highest: an answer that had company never hides a budget that a window's turn gave
// back. Waiting requests pass in reading order,
// the card nearest the top of the page first, and favicons after every metadata request and
// image: on a page of many cards the budget goes to what the reader reaches next. A refusal (429
// when another tab or a neighbour behind the same address spent the budget, or 503 while
// overloaded) closes the gate for its Retry-After.

/** What the budget is thought to be before any answer: the published limit (docs/SPEC.md "Limits"). */
const PUBLISHED_LIMIT = 20;
/** No wait longer than this, whatever a header says. */
const MAX_WAIT_MS = 30_000;
/** The wait between two lone requests when the API does not say when the budget grows. */
const PROBE_WAIT_MS = 1000;

/** Requests the gate may still send: never more than the API has left, once it has said. */
let left = PUBLISHED_LIMIT;
/** Whether `left` is a bound an answer gave (less what was sent since), or only the published limit. */
let heardFrom = false;
let inFlight = 0;
/** Requests sent so far: those sent while one was in flight overlapped it. */
let sent = 0;
/** Epoch ms before which no request is sent (a refusal's Retry-After). */
let closedUntil = 0;
/** Epoch ms when the budget grows again (the oldest request in the window leaves it). */
let resetAt = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

interface Waiting {
  /** The card (or the first of the cards) the request is for: its place on the page is its turn. */
  card: Element;
  /** 0: metadata and images; 1: favicons, which wait for everything else. */
  rank: number;
  /** Lets the request go, with its number and how many requests were in flight then. */
  pass: (ticket: number, company: number) => void;
}
const waiting: Waiting[] = [];

/** Whether `a` comes before `b`: the lower rank, then the card nearer the top of the page. */
const before = (a: Waiting, b: Waiting) =>
  a.rank < b.rank || (a.rank == b.rank && !!(a.card.compareDocumentPosition(b.card) & Node.DOCUMENT_POSITION_FOLLOWING));

/** Lets through as many waiting requests as the budget allows, first things first; else waits. */
function pump(): void {
  clearTimeout(timer);
  while (waiting.length) {
    const now = Date.now();
    const opens = left > 0 ? closedUntil : Math.max(closedUntil, resetAt);
    if (opens > now) return void (timer = setTimeout(pump, opens - now));
    if (left <= 0) {
      // The answers in flight say more; without any, the oldest request has left the window.
      if (inFlight) return;
      [left, resetAt] = [1, now + PROBE_WAIT_MS];
    }
    const first = waiting.reduce((best, one) => (before(one, best) ? one : best));
    waiting.splice(waiting.indexOf(first), 1);
    left--;
    first.pass(++sent, inFlight++);
  }
}

/**
 * Reads what an answer says about the budget, given how many requests overlapped it; true when it
 * was refused and may be asked again.
 */
function heard(response: Response, overlapped: number): boolean {
  const headers = response.headers;
  const status = response.status;
  const now = Date.now();
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = Number(headers.get('x-ratelimit-reset')) * 1000;
  if (status == 429 || status == 503) {
    // Retry-After is in seconds or an HTTP-date (RFC 9110 10.2.3), as a proxy in front may send
    // it; 1 s when it has neither. Then one request asks what is left.
    const retryAfter = headers.get('retry-after');
    const until = now + (Number(retryAfter) * 1000 || Date.parse(retryAfter!) - now || PROBE_WAIT_MS);
    [left, heardFrom, resetAt, closedUntil] = [0, true, 0, Math.max(closedUntil, Math.min(until, now + MAX_WAIT_MS))];
    return true;
  }
  // An API that does not count (no header) is not held back. A reset already past is an answer
  // from the browser's cache (or a clock behind ours): it says nothing of the budget now.
  if (remaining == null) left = Infinity;
  else if (reset > now) {
    const atLeast = Number(remaining) - overlapped;
    [left, heardFrom] = [heardFrom ? Math.max(left, atLeast) : atLeast, true];
    resetAt = Math.max(resetAt, Math.min(reset, now + MAX_WAIT_MS));
  }
  return false;
}

/**
 * GETs `url` for `card` when the budget allows, in its turn (`rank` 1 for a favicon); the answer,
 * and whether it was refused and may be asked again. Throws when the fetch fails or `signal`
 * aborts, waiting or not.
 */
export async function gated(url: string, signal: AbortSignal, card: Element, rank = 0): Promise<[Response, boolean]> {
  const [ticket, company] = await new Promise<[number, number]>((go, stop) => {
    const entry: Waiting = { card, rank, pass: (ticket, company) => go([ticket, company]) };
    waiting.push(entry);
    signal.addEventListener('abort', () => {
      const at = waiting.indexOf(entry);
      if (at >= 0) waiting.splice(at, 1);
      stop(signal.reason);
    });
    pump();
  });
  try {
    const response = await fetch(url, { signal });
    inFlight--;
    return [response, heard(response, company + sent - ticket)];
  } catch (error) {
    inFlight--;
    throw error;
  } finally {
    pump();
  }
}
