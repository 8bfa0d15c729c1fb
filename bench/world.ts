// npx tsx bench/world.ts — LinkPeek in a simulated internet (bench/world/): the corpus pages under
// their original host names, their images and icons on their own hosts, 20–60 ms per host, HTTPS
// with a test CA and HTTP/2, names through the world's nameserver. Runs as root, alone (it binds
// ports 80 and 443 on 127.0.x.y). Also part of `npm run bench` (--only world).
//
//   1 defaults   the corpus twice (first visits, then again) and cached hits; probes on, probes off,
//                and probes on without the image-host prefetch
//   2 stall      60 pages alone, and while 100 pages on names that never answer are in flight
//   3 hang       pages whose og:image host never answers in DNS, one after another
//   4 cache      60 pages on 6 hosts: queries per name at the nameserver
//
// Options: --runs N (3), --concurrency N (16, scenario 1), --only defaults,stall,hang,cache,
// --out FILE (bench/results/world.md).

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT, corpusPresent } from './lib/corpus.js';
import { startWorld } from './world/world.js';
import { worldReport, type WorldRow } from './world/report.js';
import { runCache, runDefaults, runImageHang, runStall, type CacheRun, type DefaultsRun, type HangRun, type StallRun } from './world/scenarios.js';

export interface WorldOptions {
  runs: number;
  concurrency: number;
  only: Set<string>;
  log: (line: string) => void;
}

export async function runWorldBench(options: WorldOptions): Promise<{ rows: WorldRow[]; details: string[] }> {
  const { runs, concurrency, only, log } = options;
  if (process.getuid?.() !== 0) {
    log('world: skipped (it binds ports 80 and 443 on 127.0.x.y, which needs root)');
    return { rows: [], details: [] };
  }
  log('starting the world (plan, certificates, hosts)…');
  const world = await startWorld();
  log(`world: ${world.plan.hosts.length} hosts, ${world.plan.pages.length} corpus pages, nameserver ${world.dns}`);
  const defaults: DefaultsRun[] = [];
  const stall: StallRun[] = [];
  const hang: HangRun[] = [];
  const cache: CacheRun[] = [];
  try {
    const variants = [
      { label: 'probes on', probes: true },
      { label: 'probes off', probes: false },
      { label: 'probes on, no prefetch', probes: true, prefetch: false },
    ];
    for (let run = 1; run <= runs; run++) {
      if (only.has('defaults')) {
        // The order rotates each run so no variant always meets the machine in the same state.
        for (let k = 0; k < variants.length; k++) {
          const variant = variants[(k + run - 1) % variants.length]!;
          const result = await runDefaults(world, variant, run, concurrency);
          log(
            `defaults run ${run} ${variant.label}: cold p50 ${result.cold.p50.toFixed(0)} p99 ${result.cold.p99.toFixed(0)} ${result.cold.perSecond.toFixed(0)}/s` +
              ` · warm p50 ${result.warm.p50.toFixed(0)} p99 ${result.warm.p99.toFixed(0)} ${result.warm.perSecond.toFixed(0)}/s · cached p50 ${result.cached.p50.toFixed(1)}` +
              ` · failed ${result.cold.failed}/${result.warm.failed} · images with size ${result.imagesWithSize}`,
          );
          defaults.push(result);
        }
      }
      if (only.has('stall')) {
        for (const stalled of run % 2 ? [false, true] : [true, false]) {
          const result = await runStall(world, run, stalled);
          log(
            `stall run ${run} ${stalled ? 'with' : 'without'} stall: p50 ${result.normal.p50.toFixed(0)} p99 ${result.normal.p99.toFixed(0)} failed ${result.normal.failed}` +
              (stalled ? ` · 422s ${result.stall422}/${result.stallCount}, slowest ${result.stallMaxMs.toFixed(0)} ms` : '') +
              ` · /healthz slowest ${result.healthMaxMs.toFixed(0)} ms, non-200 ${result.healthNon200}`,
          );
          stall.push(result);
        }
      }
      if (only.has('hang')) {
        const result = await runImageHang(world, run);
        log(`image-host hang run ${run}: ${result.ms.map((ms) => ms.toFixed(0)).join(', ')} ms (statuses ${result.statuses.join(',')})`);
        hang.push(result);
      }
      if (only.has('cache')) {
        const result = await runCache(world, run);
        log(`cache run ${run}: ${result.ok} answered 200; queries per name ${JSON.stringify(result.queries)}`);
        cache.push(result);
      }
    }
  } finally {
    await world.stop();
  }
  return worldReport({ defaults, stall, hang, cache, plan: world.plan, concurrency });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '16' },
      only: { type: 'string', default: 'defaults,stall,hang,cache' },
      out: { type: 'string', default: path.join(REPO_ROOT, 'bench/results/world.md') },
    },
  });
  if (!corpusPresent()) {
    console.log('bench/world.ts: no corpus at ../shared/corpus, skipped');
    process.exit(0);
  }
  const started = Date.now();
  const { rows, details } = await runWorldBench({
    runs: Number(args.runs),
    concurrency: Number(args.concurrency),
    only: new Set(args.only!.split(',')),
    log: (line) => console.log(line),
  });
  const header =
    `LinkPeek in the simulated internet — ${new Date().toISOString().slice(0, 16)}Z, \`npx tsx bench/world.ts\` (${process.argv.slice(2).join(' ') || 'defaults'}),` +
    ` ${os.cpus().length} cores, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end, ${((Date.now() - started) / 60_000).toFixed(1)} min.`;
  const table = [
    '| scenario | metric | LinkPeek | against | target | met |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.benchmark} | ${r.metric} | ${r.ours} | ${r.against} | ${r.target} | ${r.met} |`),
  ];
  const report = [header, '', ...table, '', ...details].join('\n');
  console.log(`\n${report}`);
  mkdirSync(path.dirname(args.out!), { recursive: true });
  writeFileSync(args.out!, report + '\n');
  console.log(`\n(written to ${path.relative(REPO_ROOT, args.out!)})`);
}
