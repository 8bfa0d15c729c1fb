// Every Redis key LinkPeek writes, built in one place. Redis Cluster runs a multi-key command or
// script only when all its keys hash to one slot (else CROSSSLOT), and a key's slot is taken from
// its hash tag, the text between its first `{` and the next `}`, when there is one:
//   - a client's rate-limit keys share the tag of its bucket (one of RATE_LIMIT_BUCKETS, from a
//     hash of the client), so the limiter's script can reach the log, the block and the bucket's
//     index of when each client may be forgotten, and can forget idle clients of that bucket;
//     buckets spread the clients over the cluster's nodes;
//   - a page's extraction and its fetch claim share the tag of the page's key, so they can be
//     written together.
// `prefix` is REDIS_KEY_PREFIX.

/** Enough buckets to spread over any cluster of a reasonable size, few enough to reap promptly. */
export const RATE_LIMIT_BUCKETS = 64;

export interface RateLimitKeys {
  /** Sorted set: the client's allowed requests, scored by time (ms). */
  log: string;
  /** String: when the client's block ends (ms). */
  block: string;
  /** Sorted set of the bucket: each client, scored by when its log and block are both over. */
  index: string;
  /** Start of the log and block keys of any client of the bucket (the script reaps with it). */
  bucketBase: string;
}

export interface RedisKeys {
  rateLimit(clientId: string): RateLimitKeys;
  /** A page's cached extraction. */
  extraction(pageKey: string): string;
  /** The claim of the instance fetching a page (single flight across instances). */
  claim(pageKey: string): string;
  /** Sorted set: every live instance, scored by its last heartbeat (ms). */
  instances: string;
  /** Pub/sub channel: the key of every page whose fetch ended (its waiters look again). */
  flightsDone: string;
}

/**
 * `extractionVersion` names what an extraction entry holds (cache/extraction-shape.ts); it changes
 * with that, so an entry written under older rules or another Metadata schema is never served.
 * The limiter and the fleet, which never touch extractions, need not give it.
 */
export function redisKeys(prefix: string, extractionVersion = 'x'): RedisKeys {
  return {
    rateLimit(clientId) {
      const bucketBase = `${prefix}rl:{b${bucketOf(clientId)}}:`;
      return { log: `${bucketBase}log:${clientId}`, block: `${bucketBase}block:${clientId}`, index: `${bucketBase}index`, bucketBase };
    },
    // The tag is the page key itself: its text up to a `}` it may hold is the same in both keys,
    // so they land in one slot whatever the URL contains.
    extraction: (pageKey) => `${prefix}${extractionVersion}:{${pageKey}}`,
    claim: (pageKey) => `${prefix}claim:{${pageKey}}`,
    instances: `${prefix}instances`,
    flightsDone: `${prefix}flights-done`,
  };
}

/** FNV-1a of the client id, into one of RATE_LIMIT_BUCKETS. */
export function bucketOf(clientId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < clientId.length; i++) {
    hash ^= clientId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % RATE_LIMIT_BUCKETS;
}
