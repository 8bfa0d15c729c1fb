// The world benchmark's figures against their targets: one row per target (and the figures the
// targets are read from), medians of the runs with min–max beside them.

import { median, spread } from '../lib/stats.js';
import type { WorldPlan } from './plan.js';
import { DNS_TIMEOUT_MS, ENRICH_BUDGET_MS, type CacheRun, type DefaultsRun, type HangRun, type PassFigures, type StallRun } from './scenarios.js';

export interface WorldRow {
  benchmark: string;
  metric: string;
  ours: string;
  against: string;
  ratio: string;
  target: string;
  met: string;
}

interface Runs {
  defaults: DefaultsRun[];
  stall: StallRun[];
  hang: HangRun[];
  cache: CacheRun[];
  plan: WorldPlan;
  concurrency: number;
}

const verdict = (ok: boolean) => (ok ? 'yes' : 'NO');

export function worldReport({ defaults, stall, hang, cache, plan, concurrency }: Runs): { rows: WorldRow[]; details: string[] } {
  const rows: WorldRow[] = [];
  const details: string[] = [];
  const row = (benchmark: string, metric: string, ours: string, against = '', target = '', met = '—', ratio = '') =>
    rows.push({ benchmark, metric, ours, against, ratio, target, met });

  if (defaults.length) {
    // One image round trip: connect and request to the page's slowest image host (probes run in parallel).
    const imageLatency = median(plan.pages.map((p) => p.imageLatencyMs).filter((ms) => ms > 0));
    const allowance = 2 * imageLatency + 10;
    const of = (label: string) => defaults.filter((r) => r.variant === label);
    const runOf = (label: string, run: number) => defaults.find((r) => r.variant === label && r.run === run);
    for (const pass of ['cold', 'warm'] as const) {
      const name = `world c=${concurrency}, ${pass === 'cold' ? 'first visits' : 'hosts known'}`;
      const pick = (label: string, f: (p: PassFigures) => number) => of(label).map((r) => f(r[pass]));
      const deltas = of('probes on').flatMap((on) => {
        const off = runOf('probes off', on.run);
        return off ? [on[pass].p50 - off[pass].p50] : [];
      });
      row(
        name,
        'uncached p50 ms, probes on',
        spread(pick('probes on', (p) => p.p50)),
        `probes off ${spread(pick('probes off', (p) => p.p50))}; difference ${spread(deltas)}`,
        `≤ probes off + ${allowance.toFixed(0)} (2 × ${imageLatency.toFixed(0)} ms + 10)`,
        verdict(median(deltas) <= allowance),
      );
      row(name, 'uncached p99 ms', spread(pick('probes on', (p) => p.p99)), `probes off ${spread(pick('probes off', (p) => p.p99))}`);
      row(name, 'pages/s', spread(pick('probes on', (p) => p.perSecond)), `probes off ${spread(pick('probes off', (p) => p.perSecond))}`);
      row(
        name,
        'service CPU ms per page (steadier)',
        spread(
          pick('probes on', (p) => p.cpuMs),
          2,
        ),
        `probes off ${spread(
          pick('probes off', (p) => p.cpuMs),
          2,
        )}`,
      );
      const prefetch = of('probes on').flatMap((on) => {
        const without = runOf('probes on, no prefetch', on.run);
        return without ? [on[pass].p50 - without[pass].p50] : [];
      });
      row(
        name,
        'uncached p50 ms, image-host prefetch on',
        spread(pick('probes on', (p) => p.p50)),
        `prefetch off ${spread(pick('probes on, no prefetch', (p) => p.p50))}; difference ${spread(prefetch)}`,
        'keep it if it helps',
        median(prefetch) < 0 ? 'helps' : 'no gain',
      );
      const failed = defaults.reduce((sum, r) => sum + r[pass].failed, 0);
      if (failed) row(name, 'requests not answered 200 (all variants, all runs)', String(failed));
    }
    row(
      `world c=${concurrency}, cached`,
      'cached p50 ms / p99 ms / req/s (probes on)',
      `${spread(
        of('probes on').map((r) => r.cached.p50),
        1,
      )} / ${spread(
        of('probes on').map((r) => r.cached.p99),
        1,
      )} / ${spread(of('probes on').map((r) => r.cached.perSecond))}`,
      `probes off ${spread(
        of('probes off').map((r) => r.cached.p50),
        1,
      )} / ${spread(
        of('probes off').map((r) => r.cached.p99),
        1,
      )} / ${spread(of('probes off').map((r) => r.cached.perSecond))}`,
    );
    row(
      `world c=${concurrency}, cached`,
      'service CPU µs per cached hit',
      spread(of('probes on').map((r) => 1000 * r.cached.cpuMs)),
      `probes off ${spread(of('probes off').map((r) => 1000 * r.cached.cpuMs))}`,
    );
    details.push(
      `Scenario 1: ${plan.pages.length} corpus pages on ${plan.hosts.length} hosts; each run asks for every page twice (new URLs each time), then the second pass again (cached).` +
        ` Answers with image width filled, hosts-known pass: probes on ${spread(of('probes on').map((r) => r.imagesWithSize))}, probes off ${spread(of('probes off').map((r) => r.imagesWithSize))} of ${plan.pages.length}.` +
        ` Image round trip: the median over pages of their slowest image host's latency, ${imageLatency.toFixed(0)} ms.`,
    );
  }

  if (stall.length) {
    const pairs = stall
      .filter((r) => r.stalled)
      .flatMap((s) => {
        const base = stall.find((r) => !r.stalled && r.run === s.run);
        return base ? [{ s, base }] : [];
      });
    const dp50 = pairs.map(({ s, base }) => s.normal.p50 - base.normal.p50);
    const dp99 = pairs.map(({ s, base }) => s.normal.p99 - base.normal.p99);
    const stalled = stall.filter((r) => r.stalled);
    row(
      'DNS stall',
      'normal pages p50 ms, with stall',
      spread(stalled.map((r) => r.normal.p50)),
      `without ${spread(pairs.map((p) => p.base.normal.p50))}; difference ${spread(dp50)}`,
      '≤ +50',
      verdict(Math.max(...dp50) <= 50),
    );
    row(
      'DNS stall',
      'normal pages p99 ms, with stall',
      spread(stalled.map((r) => r.normal.p99)),
      `without ${spread(pairs.map((p) => p.base.normal.p99))}; difference ${spread(dp99)}`,
      '≤ +150',
      verdict(Math.max(...dp99) <= 150),
    );
    const normalFailed = stall.reduce((sum, r) => sum + r.normal.failed, 0);
    row('DNS stall', 'normal pages not answered 200', String(normalFailed), '', '0', verdict(normalFailed === 0));
    const all422 = stalled.every((r) => r.stall422 === r.stallCount);
    const slowest = Math.max(...stalled.map((r) => r.stallMaxMs));
    row(
      'DNS stall',
      'stalled pages: 422s, slowest ms',
      `${stalled.map((r) => `${r.stall422}/${r.stallCount}`).join(', ')}; ${slowest.toFixed(0)}`,
      '',
      `all 422 within ${DNS_TIMEOUT_MS + 1000}`,
      verdict(all422 && slowest <= DNS_TIMEOUT_MS + 1000),
    );
    const health = Math.max(...stall.map((r) => r.healthMaxMs));
    row(
      'DNS stall',
      '/healthz slowest ms (every 200 ms, throughout)',
      health.toFixed(0),
      `non-200: ${stall.reduce((s, r) => s + r.healthNon200, 0)}`,
      '< 1000',
      verdict(health < 1000),
    );
    details.push(
      'Scenario 2: per run, the same 60 pages (new URLs) on a fresh service, once alone and once while 100 pages on never-answering names are in flight (32 at a time); the order alternates between runs; differences are taken run by run (the target is read on the worst run).',
    );
  }

  if (hang.length) {
    const first = hang.map((r) => r.ms[0]!);
    const later = hang.map((r) => Math.max(...r.ms.slice(1)));
    const ok = hang.every((r) => r.statuses.every((s) => s === 200));
    row(
      'image host hangs in DNS',
      'first page ms',
      spread(first),
      ok ? 'all 200' : 'NOT all 200',
      `≤ ${ENRICH_BUDGET_MS + 500}`,
      verdict(ok && Math.max(...first) <= ENRICH_BUDGET_MS + 500),
    );
    row(
      'image host hangs in DNS',
      'slowest later page ms',
      spread(later),
      `per run: ${hang
        .map((r) =>
          r.ms
            .slice(1)
            .map((ms) => ms.toFixed(0))
            .join('/'),
        )
        .join(' · ')}`,
      '< 400',
      verdict(Math.max(...later) < 400),
    );
  }

  if (cache.length) {
    const worst = cache.map((r) => Math.max(...Object.values(r.queries)));
    const names = Object.keys(cache[0]!.queries).length;
    row(
      'name cache, TTL 300 s',
      `most queries for one name (A + AAAA) over 60 pages on 6 hosts (${names} names)`,
      spread(worst),
      `answered 200: ${cache.map((r) => r.ok).join(', ')}`,
      '≤ 4',
      verdict(Math.max(...worst) <= 4),
    );
  }
  return { rows, details };
}
