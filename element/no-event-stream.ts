// Stands in for the generated SDK's server-sent-events client (generated/core/serverSentEvents.gen.ts)
// in the element's bundle (vite.config.ts): the element only makes plain GET requests, and the
// SSE client it would never call is 0.65 KB of its 9 KB gzip budget.
export function createSseClient(): never {
  throw new Error('linkpeek-preview makes no event-stream requests');
}
