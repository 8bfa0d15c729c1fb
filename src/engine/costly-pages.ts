// Which pages are refused before they are fetched: while head scans are crowded (the bound on
// scans taking turns is reached and others wait), a client that already has a scan under way, or
// whose recent pages each cost several ordinary pages' CPU, is told to come back (Overloaded: 503
// with Retry-After) instead of having its page fetched for a scan that would queue, likely past
// the request's deadline, holding its connection all the while. A client with no scan under way
// and cheap pages (a bystander) goes on, and its scan is taken before the costly ones
// (wasm-parser/scan-turns.ts). When scans are not crowded nobody is refused.

import type { ScanTurns } from '../../wasm-parser/index.js';
import { chargedClient } from '../fetch/charge.js';
import type { ClientCosts } from '../fetch/client-cost.js';

/**
 * CPU per page past which a client's pages are costly: half the scan budget's default (30 ms),
 * several times what an ordinary page's scan takes.
 */
export const COSTLY_PAGE_MS = 15;

/** The rule above, for the client at IP `client` (absent: the service's own work, never refused). */
export function refusesCostlyPages(turns: ScanTurns, costs: ClientCosts): (client: string | undefined) => boolean {
  return (client) => {
    const key = chargedClient(client);
    return key !== null && turns.crowded && (turns.scansOf(key) > 0 || costs.perPage(key) > COSTLY_PAGE_MS);
  };
}
