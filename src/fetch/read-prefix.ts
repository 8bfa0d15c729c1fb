// Reading the start of a body: a non-HTML page's first bytes, the bytes the image proxy checks
// before any header leaves, the bytes an image probe needs to name the image. Chunks are pulled one
// at a time and the rest of the body is left unread for the caller to continue or close.

export interface BodyPrefix {
  /**
   * The bytes pulled, joined: at least `limit` of them unless the body ended first. Whole chunks:
   * the last one is not cut, so a caller that goes on reading (the proxy) loses no byte.
   */
  head: Uint8Array;
  /** The body's iterator to continue after `head`; null when the body has ended. */
  rest: AsyncIterator<Uint8Array> | null;
}

/**
 * Pulls chunks of `body` until `limit` bytes are in hand, `enough(head)` says the bytes so far
 * suffice, or the body ends. The iterator is not closed (its `return()` would destroy a Node stream
 * and build an AbortError for nothing): the caller closes the response.
 */
export async function readPrefix(body: AsyncIterable<Uint8Array>, limit: number, enough?: (head: Uint8Array) => boolean): Promise<BodyPrefix> {
  const rest = body[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let head: Uint8Array | null = null; // the joined chunks, kept current while `enough` looks at them
  while (length < limit) {
    const next = await rest.next();
    if (next.done) return { head: head ?? joined(chunks), rest: null };
    chunks.push(next.value);
    length += next.value.length;
    if (enough !== undefined) {
      head = joined(chunks);
      if (enough(head)) return { head, rest };
    }
  }
  return { head: head ?? joined(chunks), rest };
}

/** One chunk as it is (no copy), several concatenated. */
function joined(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  return chunks.length === 0 ? new Uint8Array(0) : Buffer.concat(chunks);
}
