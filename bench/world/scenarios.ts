// The world benchmark's scenarios. Each starts LinkPeek fresh in the world (world.ts), so every
// run begins with empty caches, no pooled connections and no names resolved.

import { cpuMsOf } from '../lib/proc.js';
import { median, percentile } from '../lib/stats.js';
import { drive, metadataPath, poll, versioned, type Timed } from './drive.js';
import { startService, type Variant, type World } from './world.js';

/** Defaults of the settings the targets are stated in (src/config.ts). */
export const DNS_TIMEOUT_MS = 1_500;
export const ENRICH_BUDGET_MS = 1_500;

export interface PassFigures {
  p50: number;
  p99: number;
  perSecond: number;
  failed: number;
  /** The service's CPU time (user + system) per request, ms: steadier than times on a shared machine. */
  cpuMs: number;
}

function figures({ results, seconds }: { results: Timed[]; seconds: number }, cpuMs = NaN): PassFigures {
  const ok = results.filter((r) => r.status === 200);
  const ms = ok.map((r) => r.ms);
  return { p50: median(ms), p99: percentile(ms, 99), perSecond: ok.length / seconds, failed: results.length - ok.length, cpuMs: cpuMs / results.length };
}

/** drive() with the service's CPU time over the batch. */
async function measured(pid: number, ...args: Parameters<typeof drive>): Promise<PassFigures & { results: Timed[] }> {
  const cpu = cpuMsOf(pid);
  const batch = await drive(...args);
  return { ...figures(batch, cpuMsOf(pid) - cpu), results: batch.results };
}

export interface DefaultsRun {
  variant: string;
  run: number;
  /** First visit to every host (names, connections and TLS all new), then the same pages again (new URLs), then cached hits of the second pass. */
  cold: PassFigures;
  warm: PassFigures;
  cached: PassFigures;
  /** Pages whose answer carries probed image dimensions (probes on) or tagged ones only. */
  imagesWithSize: number;
}

/** Scenario 1: the corpus in the world at defaults, one variant per service start. */
export async function runDefaults(world: World, variant: Variant, run: number, concurrency: number): Promise<DefaultsRun> {
  const service = await startService(world, variant);
  try {
    const pass = (name: string) => world.order.map((page, i) => metadataPath(versioned(page.url, `${variant.label}-${run}-${name}-${i}`)));
    const cold = await measured(service.pid, service.origin, pass('1'), concurrency);
    const warmPaths = pass('2');
    const warm = await measured(service.pid, service.origin, warmPaths, concurrency);
    const cached = await measured(service.pid, service.origin, warmPaths, concurrency);
    const imagesWithSize = warm.results.filter((r) => r.status === 200 && /"image":\{[^}]*"width":\d/.test(r.body)).length;
    const strip = ({ results: _, ...figures }: PassFigures & { results: Timed[] }): PassFigures => figures;
    return { variant: variant.label, run, cold: strip(cold), warm: strip(warm), cached: strip(cached), imagesWithSize };
  } finally {
    await service.stop();
  }
}

export interface StallRun {
  run: number;
  stalled: boolean;
  normal: PassFigures;
  /** Stalled requests: how many answered 422, and the slowest of them, ms. */
  stall422: number;
  stallMaxMs: number;
  stallCount: number;
  healthMaxMs: number;
  healthNon200: number;
}

/**
 * Scenario 2: 60 normal pages (concurrency 8) alone, or while 100 pages on distinct names whose
 * nameserver never answers are in flight 32 at a time; /healthz asked every 200 ms throughout.
 */
export async function runStall(world: World, run: number, stalled: boolean): Promise<StallRun> {
  const service = await startService(world, { label: 'defaults', probes: true });
  const health = poll(service.origin, '/healthz', 200);
  try {
    const names = world.plan.silentNames.slice(0, world.plan.silentNames.length - 1);
    const stallPaths = Array.from({ length: 100 }, (_, i) => metadataPath(`https://${names[(run * 100 + i) % names.length]}/article/${run}-${i}`));
    const stall = stalled ? drive(service.origin, stallPaths, 32, 1) : null; // 32 attackers' addresses
    if (stall) await new Promise((r) => setTimeout(r, 300)); // the stalled lookups are in flight first
    const normalPaths = world.order.slice(100, 160).map((page, i) => metadataPath(versioned(page.url, `stall-${run}-${stalled}-${i}`)));
    const normal = await drive(service.origin, normalPaths, 8, 2); // 8 other users
    const stallResults = stall ? (await stall).results : [];
    const healthResults = await health.stop();
    return {
      run,
      stalled,
      normal: figures(normal),
      stall422: stallResults.filter((r) => r.status === 422).length,
      stallMaxMs: Math.max(0, ...stallResults.map((r) => r.ms)),
      stallCount: stallResults.length,
      healthMaxMs: Math.max(0, ...healthResults.map((r) => r.ms)),
      healthNon200: healthResults.filter((r) => r.status !== 200).length,
    };
  } finally {
    await health.stop();
    await service.stop();
  }
}

export interface HangRun {
  run: number;
  /** Each page of the host whose og:image host never answers, asked one after another, ms. */
  ms: number[];
  statuses: number[];
}

/** Scenario 3: pages whose image host hangs in DNS, asked one after another. */
export async function runImageHang(world: World, run: number): Promise<HangRun> {
  const service = await startService(world, { label: 'defaults', probes: true });
  try {
    const paths = world.plan.special.imageHang.map((page, i) => metadataPath(versioned(page.url, `hang-${run}-${i}`)));
    const { results } = await drive(service.origin, paths, 1);
    return { run, ms: results.map((r) => r.ms), statuses: results.map((r) => r.status) };
  } finally {
    await service.stop();
  }
}

export interface CacheRun {
  run: number;
  /** Queries (A + AAAA) per name over the 60 pages. */
  queries: Record<string, number>;
  ok: number;
}

/** Scenario 4: 60 pages on 6 hosts (TTL 300 s), concurrency 8; queries counted at the nameserver. */
export async function runCache(world: World, run: number): Promise<CacheRun> {
  const service = await startService(world, { label: 'defaults', probes: true });
  try {
    const pages = world.plan.special.cache;
    const names = [...new Set(pages.flatMap((p) => [p.url, ...p.imageUrls].map((u) => new URL(u).hostname)))];
    const before = await world.queries(names);
    const { results } = await drive(
      service.origin,
      pages.map((p, i) => metadataPath(versioned(p.url, `cache-${run}-${i}`))),
      8,
    );
    const after = await world.queries(names);
    return {
      run,
      queries: Object.fromEntries(names.map((n) => [n, (after[n] ?? 0) - (before[n] ?? 0)])),
      ok: results.filter((r) => r.status === 200).length,
    };
  } finally {
    await service.stop();
  }
}
