// Starting the benchmark world (world-server.ts, its own process) and LinkPeek inside it.

import path from 'node:path';
import { linkpeek } from '../lib/contenders.js';
import { requestOrder, loadManifest } from '../lib/corpus.js';
import { startServer, type Server } from '../lib/proc.js';
import type { PagePlan, WorldPlan } from './plan.js';

export interface World {
  plan: WorldPlan;
  /** The corpus pages in the benchmarks' fixed shuffled order. */
  order: PagePlan[];
  /** DNS_SERVERS for the service. */
  dns: string;
  caFile: string;
  /** A and AAAA queries the nameserver received, per name. */
  queries(names: readonly string[]): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const server = await startServer('world', path.join('bench', 'world', 'world-server.ts'));
  const control = async <T>(pathAndQuery: string): Promise<T> => {
    const res = await fetch(`${server.origin}${pathAndQuery}`);
    return (await res.json()) as T;
  };
  const { plan, dns, caFile } = await control<{ plan: WorldPlan; dns: string; caFile: string }>('/plan');
  const byFile = new Map(plan.pages.map((p) => [p.file, p]));
  return {
    plan,
    order: requestOrder(loadManifest()).map((page) => byFile.get(page.name)!),
    dns,
    caFile,
    queries: (names) => control(`/queries?${new URLSearchParams(names.map((name) => ['name', name]))}`),
    stop: () => server.stop(),
  };
}

/** What varies between runs of the service in the world; everything else is at its default. */
export interface Variant {
  label: string;
  probes: boolean;
  prefetch?: boolean;
}

/**
 * LinkPeek at its defaults (probes on unless the variant says otherwise), with the world's
 * nameserver and CA, loopback upstreams allowed (the world lives on 127.0.x.y), and, as in every
 * benchmark, no rate limit (one client sends everything), no Redis, no remote safety lookup.
 */
export function startService(world: World, variant: Variant, env: Record<string, string> = {}): Promise<Server> {
  return linkpeek(`LinkPeek (${variant.label})`, {
    DNS_SERVERS: world.dns,
    UPSTREAM_CA_FILE: world.caFile,
    PROBE_IMAGES: String(variant.probes),
    BENCH_PREFETCH_IMAGE_HOSTS: String(variant.prefetch ?? true),
    ...env,
  }).start();
}
