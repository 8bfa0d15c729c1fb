// Which pages are refused before they are fetched: while head scans are crowded (the bound on
// scans taking turns is reached and others wait), a client whose recent pages each cost several
// ordinary pages' CPU, or a client with a scan under way and no page ended lately (a newcomer
// whose cost is not known yet, as a flood from fresh addresses is), is told to come back
// (Overloaded: 503 with Retry-After) instead of having its page fetched for a scan that would
// queue, likely past the request's deadline, holding its connection all the while. A client whose
// pages are cheap goes on, however many it sends at once (an integrator's server, a page of
// previews), and its scans are taken before the costly ones (wasm-parser/scan-turns.ts). When
// scans are not crowded nobody is refused. The same costs set how long a client's scan runs before
// it first yields to the event loop (firstSliceFor).

import { FIRST_SLICE_MS, SLICE_MS, type ScanTurns } from '../../wasm-parser/index.js';
import { chargedClient } from '../fetch/charge.js';
import type { ClientCosts } from '../fetch/client-cost.js';

/**
 * The cost per page past which a client's pages are costly: two thirds of the scan budget
 * (SCAN_BUDGET_MS; 20 ms of the default 30), several times what an ordinary page's scan takes. Not
 * half: the budget's first half is counted in wall time (wasm-parser/scan-pacer.ts), so on a
 * contended CPU an ordinary page can be charged up to that half; a page that runs to its budget is
 * charged all of it.
 */
export function costlyPageMs(scanBudgetMs: number): number {
  return (scanBudgetMs * 2) / 3;
}

/** The rule above, for the client at IP `client` (absent: the service's own work, never refused). */
export function refusesCostlyPages(turns: ScanTurns, costs: ClientCosts, scanBudgetMs: number): (client: string | undefined) => boolean {
  const costly = costlyPageMs(scanBudgetMs);
  return (client) => {
    const key = chargedClient(client);
    if (key === null || !turns.crowded) return false;
    if (costs.perPage(key) > costly) return true;
    return turns.scansOf(key) > 0 && !costKnown(costs, key);
  };
}

/**
 * Whether a page of the client ended lately, so that its cost per page is known: half a page left
 * of its decayed count, the last one ended within about one half-life of the cost (client-cost.ts).
 */
function costKnown(costs: ClientCosts, key: string): boolean {
  return costs.pagesEnded(key) >= 0.5;
}

/**
 * The work before the first yield of a scan for the client at IP `client`: a first slice long
 * enough for an ordinary head (FIRST_SLICE_MS) when the client's recent pages are known and cost
 * no more than that each, else SLICE_MS. A newcomer, whose cost is not known yet (a flood of
 * heavy pages from fresh addresses), and a client with costlier pages share the event loop a slice
 * at a time from the first.
 */
export function firstSliceFor(costs: ClientCosts): (client: string | undefined) => number {
  return (client) => {
    const key = chargedClient(client);
    if (key === null) return FIRST_SLICE_MS;
    return costKnown(costs, key) && costs.perPage(key) <= FIRST_SLICE_MS ? FIRST_SLICE_MS : SLICE_MS;
  };
}
