// npx tsx bench/stalls.ts (npm run bench:stalls; spawned by npm run bench) — two stalls the
// service must not pass on to its clients, each beside the same scenario as it behaved without the
// protection, for contrast.
//
//   Redis stall  Redis behind a TCP proxy (test/helpers/freezing-proxy.ts) that freezes: it keeps
//                the connections and holds every byte, as a stuck Redis does. Targets: a cached hit
//                answers within 1 s, an uncached page within FETCH_TIMEOUT_MS + 1 s, /healthz says
//                degraded within 5 s. Contrast: REDIS_TIMEOUT_MS=600000 (no deadline in effect).
//   Fair slots   5 clients (127.0.0.11–15) each ask for 20 pages that drip a byte every 500 ms and
//                never end (100 pages on 20 hosts); then a sixth client (127.0.0.16) asks for a
//                quick page, 5 times. Target: it answers within 1 s. Contrast: the shares off
//                (MAX_FETCHES_PER_CLIENT=0, MAX_FETCHES_PER_HOST=0).
//
// LinkPeek runs compiled in its own process at default settings (loopback upstreams allowed, and
// for the Redis stall the proxy's REDIS_URL); writes bench/results/stalls.md.
// Options: --only redis,fair (both), --out FILE.

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startFreezingProxy } from '../test/helpers/freezing-proxy.js';
import { startRedis } from '../test/provision.mjs';
import { linkpeek } from './lib/contenders.js';
import { REPO_ROOT } from './lib/corpus.js';
import { describeHealth, drippingPages, health, healthTurns, metadataUrl, quickPages, timedGet, type LocalServer } from './lib/stall-world.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'redis,fair' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench/results/stalls.md') },
  },
});
const only = new Set(args.only!.split(','));
const FETCH_TIMEOUT_MS = 8000; // the default, which the service runs with here
/** Settings left at their defaults ('' reads as unset), over the peer comparison's bench settings. */
const DEFAULTS = { RATE_LIMIT_MAX: '', PROBE_IMAGES: '', MAX_FETCHES_PER_CLIENT: '', MAX_FETCHES_PER_HOST: '', LOG_LEVEL: 'warn' };
const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};
const ms = (v: number | null) => (v === null ? 'never' : `${v.toFixed(0)} ms`);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

// ---- Redis stall -------------------------------------------------------------------------------

async function redisStall(label: string, env: Record<string, string>, clientTimeoutMs: number, repeats: number): Promise<void> {
  // A Redis of its own on a free port, as the tests have: the machine's Redis is left alone.
  const redis = await startRedis();
  const proxy = await startFreezingProxy({ host: '127.0.0.1', port: redis.port });
  const pages = await quickPages('127.0.0.1');
  const server = await linkpeek('LinkPeek', { ...DEFAULTS, REDIS_URL: proxy.url(12), RATE_LIMIT_MAX: '1000', ...env }).start();
  try {
    const cached = metadataUrl(server.origin, `${pages.origin}/cached?${Date.now()}`);
    const warm = await timedGet(cached, '127.0.0.31');
    if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}`);
    const before = describeHealth(await health(server.origin));

    proxy.freeze();
    const degraded = healthTurns(server.origin, (h) => h.status === 'degraded' && h.redis === 'down', 5000 + 1000);
    const [hit, fresh] = await Promise.all([
      timedGet(cached, '127.0.0.31', clientTimeoutMs),
      timedGet(metadataUrl(server.origin, `${pages.origin}/fresh?${Date.now()}`), '127.0.0.32', clientTimeoutMs),
    ]);
    const degradedAfter = await degraded;
    // After the first requests: `repeats` more of each, one at a time.
    const hits: number[] = [];
    const uncached: number[] = [];
    for (let i = 0; i < repeats; i++) {
      hits.push((await timedGet(cached, '127.0.0.31', clientTimeoutMs)).ms);
      uncached.push((await timedGet(metadataUrl(server.origin, `${pages.origin}/more-${i}?${Date.now()}`), '127.0.0.32', clientTimeoutMs)).ms);
    }
    proxy.thaw();
    const back = await healthTurns(server.origin, (h) => h.redis === 'ok', 10_000);

    const status = (t: { status: number; ms: number }) => (t.status === 0 ? `no answer within ${clientTimeoutMs} ms` : `${t.status} in ${ms(t.ms)}`);
    say(`\n### Redis stall, ${label}\n`);
    say(`- /healthz before the freeze: ${before}`);
    say(`- first cached hit after the freeze: ${status(hit)} (target ≤ 1000 ms: ${verdict(hit.status === 200 && hit.ms <= 1000)})`);
    say(
      `- first uncached page after the freeze: ${status(fresh)} (target ≤ ${FETCH_TIMEOUT_MS + 1000} ms: ${verdict(fresh.status === 200 && fresh.ms <= FETCH_TIMEOUT_MS + 1000)})`,
    );
    say(`- /healthz said degraded, redis down, after: ${ms(degradedAfter)} (target ≤ 5000 ms: ${verdict(degradedAfter !== null && degradedAfter <= 5000)})`);
    if (repeats > 0) {
      say(
        `- the next ${repeats} cached hits: median ${ms(median(hits))}, max ${ms(Math.max(...hits))}; the next ${repeats} uncached pages: median ${ms(median(uncached))}, max ${ms(Math.max(...uncached))}`,
      );
    }
    if (degradedAfter !== null) say(`- /healthz redis ok again after the thaw: ${ms(back)}`);
  } finally {
    await server.stop();
    await pages.close();
    await proxy.close();
    await redis.stop();
  }
}

// ---- Fair slots --------------------------------------------------------------------------------

const HOLDERS = 5;
const PAGES_EACH = 20;
const DRIP_HOSTS = 20;

async function fairSlots(label: string, env: Record<string, string>): Promise<void> {
  const drips: LocalServer[] = [];
  for (let h = 1; h <= DRIP_HOSTS; h++) drips.push(await drippingPages(`127.0.1.${h}`));
  const pages = await quickPages('127.0.2.1');
  const server = await linkpeek('LinkPeek', { ...DEFAULTS, ...env }).start();
  try {
    const held: Promise<unknown>[] = [];
    for (let c = 0; c < HOLDERS; c++) {
      for (let i = 0; i < PAGES_EACH; i++) {
        const page = `${drips[(c * PAGES_EACH + i) % DRIP_HOSTS]!.origin}/drip-${c}-${i}`;
        held.push(timedGet(metadataUrl(server.origin, page), `127.0.0.${11 + c}`, 20_000));
      }
    }
    await new Promise((r) => setTimeout(r, 1000)); // every drip has started (or queued)
    const during = await health(server.origin);
    const sixth: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await timedGet(metadataUrl(server.origin, `${pages.origin}/sixth-${i}`), '127.0.0.16', 20_000);
      sixth.push(res.ms);
      statuses.push(res.status);
    }
    say(`\n### Fair slots, ${label}\n`);
    say(`- while ${HOLDERS} clients hold ${HOLDERS * PAGES_EACH} dripping pages, /healthz: ${describeHealth(during)}`);
    say(`- a sixth client's page, 5 times one after another: statuses ${statuses.join(', ')}; ${sixth.map((v) => ms(v)).join(', ')}`);
    say(
      `- first answer ${ms(sixth[0]!)}, slowest ${ms(Math.max(...sixth))} (target ≤ 1000 ms: ${verdict(statuses.every((s) => s === 200) && Math.max(...sixth) <= 1000)})`,
    );
    await server.stop(); // ends the drips' fetches at once; their answers are not what is measured
    await Promise.all(held);
  } finally {
    await server.stop();
    await pages.close();
    for (const d of drips) await d.close();
  }
}

// ---- Run ---------------------------------------------------------------------------------------

const started = Date.now();
say(
  `LinkPeek stall benchmarks — ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'cpu'}), Node ${process.version}.`,
);
say('LinkPeek compiled, in its own process, at default settings unless named; the clients and upstreams in this process.');
say(
  `Load average at the start: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')} (the machine is shared: a lagging event loop alone makes /healthz say degraded).`,
);
if (only.has('redis')) {
  await redisStall('REDIS_TIMEOUT_MS default (250 ms)', {}, 15_000, 20);
  await redisStall('contrast: REDIS_TIMEOUT_MS=600000 (no deadline in effect)', { REDIS_TIMEOUT_MS: '600000' }, 5000, 0);
}
if (only.has('fair')) {
  await fairSlots('default shares (MAX_FETCHES_PER_CLIENT=8, MAX_FETCHES_PER_HOST=16)', {});
  await fairSlots('contrast: shares off (MAX_FETCHES_PER_CLIENT=0, MAX_FETCHES_PER_HOST=0)', { MAX_FETCHES_PER_CLIENT: '0', MAX_FETCHES_PER_HOST: '0' });
}
say(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
mkdirSync(path.dirname(args.out!), { recursive: true });
writeFileSync(args.out!, lines.join('\n') + '\n');
console.log(`\n(written to ${path.relative(REPO_ROOT, args.out!)})`);
