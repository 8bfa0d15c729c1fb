// Random cuts of a document into chunks, repeatable by seed: a streaming parser must
// give the same result however its input is cut.
// SCAN_SEED=<number> replays a run; the seed in use is printed once per process.

import { mulberry32 } from '../helpers/prng.js';

/** The cuts' PRNG (test/helpers/prng.ts). */
export const prng = mulberry32;

let announced = false;

/** The run's seed: SCAN_SEED when set, else a fresh one; printed so a failure can be replayed. */
export function runSeed(): number {
  const fromEnv = process.env.SCAN_SEED;
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
  if (!announced) {
    console.log(`chunk cuts: SCAN_SEED=${seed}`);
    announced = true;
  }
  return seed;
}

/** Cuts `bytes` into chunks of 1..maxChunk bytes (some of them a single byte). */
export function cut(bytes: Uint8Array, random: () => number, maxChunk = 97): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = random() < 0.2 ? 1 : 1 + Math.floor(random() * maxChunk);
    // Copies, as a network stream would hand them (the scanner keeps references to chunks).
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/** An async source over `chunks` that records how many were pulled and whether return() ran. */
export function trackedSource(chunks: Uint8Array[]) {
  const state = { pulled: 0, returned: false };
  const source: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        async next() {
          if (i >= chunks.length) return { done: true, value: undefined };
          state.pulled++;
          return { done: false, value: chunks[i++]! };
        },
        async return() {
          state.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { source, state };
}

export const utf8 = (text: string) => new TextEncoder().encode(text);
