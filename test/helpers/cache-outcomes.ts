// How many answers an instance has counted per cache outcome, read from its /metrics. A request
// that joins a fetch in flight is counted 'shared' the moment it joins, so a test that holds the
// upstream can let it go once every request it sent has joined, instead of after a fixed time.

import { checkedRequest } from './service.js';

/** The count of `outcome` (hit, miss or shared) at the instance listening on `baseUrl`. */
export async function cacheOutcomes(baseUrl: string, outcome: 'hit' | 'miss' | 'shared'): Promise<number> {
  const text = (await checkedRequest(`${baseUrl}/metrics`)).text;
  const line = new RegExp(`^linkpeek_cache_requests_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}
