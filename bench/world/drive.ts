// The client side of the world benchmarks: sends a list of /v1/metadata requests to the service
// with a fixed number in flight, from as many client addresses, and times each one (send to last byte). In the benchmark's own
// process: at the rates measured here (tens to hundreds of pages a second) a keep-alive undici
// pool costs far less than the service it drives.

import { Pool } from 'undici';
import { VERSION_PARAM } from './plan.js';

export interface Timed {
  url: string;
  status: number;
  /** Send to last byte, ms. */
  ms: number;
  /** Since the batch started, ms (when this request was sent). */
  at: number;
  body: string;
}

/** `url` made new for the service's cache (the world strips the parameter again). */
export function versioned(url: string, version: string): string {
  const out = new URL(url);
  out.searchParams.set(VERSION_PARAM, version);
  return out.href;
}

export function metadataPath(url: string): string {
  return `/v1/metadata?${new URLSearchParams({ url })}`;
}

/**
 * Asks for every path, `concurrency` at a time, in order; resolves with one Timed per path. Each
 * of the `concurrency` connections comes from its own address, 127.1.<group>.<n>: many users, as
 * the service's per-client fetch share sees them (one address would be one client held to its share).
 */
export async function drive(
  origin: string,
  paths: readonly string[],
  concurrency: number,
  group = 0,
  timeoutMs = 20_000,
): Promise<{ results: Timed[]; seconds: number }> {
  const results: Timed[] = [];
  const started = performance.now();
  let next = 0;
  const worker = async (n: number) => {
    const pool = new Pool(origin, { connections: 1, pipelining: 1, localAddress: clientAddress(group, n) });
    try {
      while (next < paths.length) {
        const path = paths[next++]!;
        results.push(await timed(pool, path, started, timeoutMs));
      }
    } finally {
      await pool.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, (_, n) => worker(n)));
  return { results, seconds: (performance.now() - started) / 1000 };
}

/** The source address of one simulated user (127.1.0.0/16, apart from the world's 127.0.x.y). */
function clientAddress(group: number, n: number): string {
  return `127.1.${group}.${1 + n}`;
}

/** One request on `pool`; a transport failure or timeout is status 0. */
async function timed(pool: Pool, path: string, started: number, timeoutMs: number): Promise<Timed> {
  const sent = performance.now();
  try {
    const res = await pool.request({ method: 'GET', path, signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.body.text();
    return { url: path, status: res.statusCode, ms: performance.now() - sent, at: sent - started, body };
  } catch {
    return { url: path, status: 0, ms: performance.now() - sent, at: sent - started, body: '' };
  }
}

/** Asks for `path` every `everyMs` until stop() is called; stop() resolves with the timings. */
export function poll(origin: string, path: string, everyMs: number, group = 9): { stop(): Promise<Timed[]> } {
  const pool = new Pool(origin, { connections: 1, localAddress: clientAddress(group, 0) });
  const results: Timed[] = [];
  const started = performance.now();
  let running = true;
  const loop = (async () => {
    while (running) {
      results.push(await timed(pool, path, started, 10_000));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  let stopped: Promise<Timed[]> | null = null;
  return {
    stop() {
      running = false;
      stopped ??= loop.then(() => pool.close()).then(() => results);
      return stopped;
    },
  };
}
