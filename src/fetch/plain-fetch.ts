// fetch() for LinkPeek's own API calls (Google Safe Browsing), with names resolved by the caching
// c-ares resolver like every upstream fetch: the global fetch would use dns.lookup and the thread
// pool. No address guard here: the endpoint is an operator's setting (SAFE_BROWSING_URL), never a
// URL from a request.

import { Agent, fetch as undiciFetch } from 'undici';
import type { CloseOptions } from './fetcher.js';
import type { Resolver } from './resolver.js';

export function fetchThrough(resolver: Resolver): { fetch: typeof globalThis.fetch; close(options?: CloseOptions): Promise<void> } {
  const dispatcher = new Agent({ connect: { lookup: resolver.lookup } });
  const fetch = ((input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as object), dispatcher })) as unknown as typeof globalThis.fetch;
  return { fetch, close: (options) => (options?.cut ? dispatcher.destroy() : dispatcher.close()) };
}
