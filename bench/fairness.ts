// npm run bench:fairness — a fair share for every client: a bystander's answers while attackers,
// each within the rate limit, send the worst traffic of one class, against the same bystander with
// no attack in the same run; and what /healthz says. About 15 minutes with every class and size.
//
//   ordinary fresh ordinary pages on random domains: the control, no attack at all
//   drip     pages on random domains that drip one byte every 500 ms
//   nodns    names whose nameserver never answers, 3 per address per burst
//   assets   fast pages whose og:image, icon and oEmbed hosts never answer in DNS
//   heavy    gzip pages of a few KB whose head is 2 MB of tags
//
// Each at 8, 32 and 128 attacker addresses: half on real IPv4 source addresses (127.2.x.y), half
// IPv6 /64s named in X-Forwarded-For (attacks.ts says why). Every measurement starts a fresh
// LinkPeek (compiled, its own process, default settings: bench/fairness/service.ts), warms it,
// runs the bystander alone (baseline) and then under attack, then waits up to 30 s for /healthz to
// say `ok`. The world (its own process, bench/fairness/world-server.ts) needs no root. The
// attackers' servers (bench/fairness/attacker-servers.ts) are a process of their own, apart from
// the bystander's sites: in life they are other machines, and serving an attack's pages must not
// slow the bystander's site. The world, the attackers' servers and the attackers (processes
// of their own, four for the attackers) stand for other machines: they run at a lower priority
// (attacker-fleet.ts), so that on this 2-core machine the service competes for the CPU with
// itself, and the bystander (this process) is not starved by the load generator.
//
// With the control, the instance's capacity alone comes first: ordinary fresh pages, 64 at a time
// from ever new clients, for 10 s, shedding off (SHED_TARGET_MS=0); the control's goodput is held
// to 80% of it (or of what was sent).
//
// Options: --only ordinary,drip,nodns,assets,heavy   --sizes 8,32,128 (up to 512: a machine that
//          finishes more than the 230 pages a second 128 addresses ask is past capacity only at
//          more)   --out FILE (bench/results/fairness.md)
//          --linkpeek DIR (another checkout with a compiled dist/, for before/after; default this one,
//          compiled first)   --attack-seconds 15   --baseline-seconds (default: as long as the attack)
//          --bystander-ms 2000 (the bystander's pace: one request every this many ms)   --set NAME=VALUE
//          (a setting of the service's on top of its defaults, repeatable: to try one; said in the
//          report's command)

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './lib/corpus.js';
import { startServer } from './lib/proc.js';
import { OTHER_MACHINES_NICENESS } from './fairness/attacker-fleet.js';
import { ATTACK_CLASSES, MAX_ATTACKERS, type AttackClass } from './fairness/names.js';
import { HEAVY_HEAD } from './fairness/pages.js';
import { details, markdownTable, rows, TABLE_HEAD } from './fairness/report.js';
import { extraSettings } from './fairness/service.js';
import { measureAttack, measureCapacity, type AttackRun, type FairnessWorld } from './fairness/scenario.js';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: ATTACK_CLASSES.join(',') },
    sizes: { type: 'string', default: '8,32,128' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench/results/fairness.md') },
    linkpeek: { type: 'string' },
    'baseline-seconds': { type: 'string' },
    'attack-seconds': { type: 'string', default: '15' },
    'bystander-ms': { type: 'string', default: '2000' },
    set: { type: 'string', multiple: true, default: [] },
  },
});
const classes = args.only!.split(',').map((c) => c.trim()) as AttackClass[];
const unknown = classes.filter((c) => !ATTACK_CLASSES.includes(c));
const sizes = args.sizes!.split(',').map(Number);
if (unknown.length > 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_ATTACKERS)) {
  console.error(`--only takes ${ATTACK_CLASSES.join(',')}; --sizes takes whole numbers from 1 to ${MAX_ATTACKERS}`);
  process.exit(2);
}
const timing = {
  // As long as the attack by default, so that the baseline's percentiles stand on as many samples
  // as the attack's: 8 s gave 3 uncached samples, whose median moved by 50 ms from run to run.
  baselineMs: Number(args['baseline-seconds'] ?? args['attack-seconds']) * 1000,
  attackMs: Number(args['attack-seconds']) * 1000,
  bystanderMs: Number(args['bystander-ms']),
};
for (const setting of args.set!) {
  const [name, value] = setting.split(/=(.*)/s);
  if (!name || value === undefined) {
    console.error(`--set takes NAME=VALUE, not ${setting}`);
    process.exit(2);
  }
  extraSettings[name] = value;
}
const checkout = path.resolve(args.linkpeek ?? REPO_ROOT);
if (args.linkpeek === undefined) {
  // The build `npm start` runs (tsc, then the bundled entry points): tsc alone would leave
  // dist/server/src/main.js unbundled, slower to start, for the tests that run it after.
  console.log('building this checkout (npm run build:server)…');
  execFileSync('npm', ['run', '-s', 'build:server'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
const revision = (() => {
  try {
    return execFileSync('git', ['-C', checkout, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 100);
  } catch {
    return 'not a git checkout';
  }
})();

const started = Date.now();
const loadAtStart = os.loadavg();
const worldServer = await startServer('fairness world', path.join('bench', 'fairness', 'world-server.ts'));
os.setPriority(worldServer.pid, OTHER_MACHINES_NICENESS);
const attackerServers = await startServer("attackers' servers", path.join('bench', 'fairness', 'attacker-servers.ts'));
os.setPriority(attackerServers.pid, OTHER_MACHINES_NICENESS);
const runs: AttackRun[] = [];
const CAPACITY_CONCURRENCY = 64;
const CAPACITY_SECONDS = 10;
let capacity: Awaited<ReturnType<typeof measureCapacity>> | null = null;
try {
  const world = {
    ...((await (await fetch(`${worldServer.origin}/plan`)).json()) as Omit<FairnessWorld, 'attackPorts'>),
    ...((await (await fetch(`${attackerServers.origin}/plan`)).json()) as Pick<FairnessWorld, 'attackPorts'>),
  };
  console.log(`world: ${world.sites.length} sites, nameserver ${world.dns}; LinkPeek from ${checkout} (${revision})`);
  if (classes.includes('ordinary')) {
    capacity = await measureCapacity(checkout, world, CAPACITY_CONCURRENCY, CAPACITY_SECONDS);
    console.log(`capacity alone: ${capacity.perSecond.toFixed(0)} answers of 200 a second (${JSON.stringify(capacity.outcome.statuses)})`);
  }
  for (const attack of classes) {
    for (const size of sizes) {
      const run = await measureAttack(checkout, world, attack, size, timing);
      runs.push(run);
      const [row] = rows([...runs.filter((r) => r.attack === attack && r !== run), run], capacity?.perSecond ?? null).slice(-1);
      console.log(row!.cells.map((cell, i) => `${TABLE_HEAD[i]}: ${cell}`).join(' · '));
    }
  }
} finally {
  await Promise.all([worldServer.stop(), attackerServers.stop()]);
}

const command = `npm run bench:fairness${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const load = (l: number[]) => l.map((v) => v.toFixed(1)).join(' ');
const report = [
  '# Fairness under attack',
  '',
  `${new Date().toISOString().slice(0, 16)}Z, \`${command}\`, ${((Date.now() - started) / 60_000).toFixed(1)} min; ` +
    `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'cpu'}), Node ${process.version}; load average ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end (the machine is shared).`,
  `LinkPeek: ${path.relative(REPO_ROOT, checkout) || 'this checkout'} (${revision}), compiled, its own process, default settings but DNS_SERVERS, UPSTREAM_CA_FILE, ALLOW_PRIVATE_NETWORKS and TRUST_PROXY${
    Object.keys(extraSettings).length > 0
      ? `, and ${Object.entries(extraSettings)
          .map(([name, value]) => `${name}=${value}`)
          .join(', ')} (--set)`
      : ''
  }. ` +
    `The bystander and the /healthz poll: the benchmark's process; the attackers and the world's sites (other machines in real life): processes of their own at niceness ${OTHER_MACHINES_NICENESS}.`,
  `Each row: a fresh service; the bystander alone for ${timing.baselineMs / 1000} s, then under attack for ${timing.attackMs / 1000} s; one request every ${timing.bystanderMs} ms, two uncached for one cached. ` +
    'Each attacker address asks one page every 556 ms (18 in 10 s, within the rate limit of 20). ' +
    'Baseline in brackets: the baseline windows of the same class in this run, pooled. A request not answered 200 ranks above every answer ("failed" when a percentile lands on one). Targets: uncached p50 ≤ baseline + 50 ms, p90 ≤ baseline + 250 ms, cached p50 ≤ baseline + 5 ms, no 503 or 422, ' +
    "/healthz `degraded` during the attack (the control: at 128 addresses) and `ok` within 30 s of its end; for the classes whose pages are fast (ordinary, heavy heads), 95% of the attackers' requests answered (a 503 or 429 included) within 2 s of all they sent, and none past 10 s; " +
    `the control's goodput (answers of 200 a second, attackers' and bystander's) at least 80% of the capacity alone or of what was sent, whichever is less.` +
    (capacity
      ? ` Capacity alone: ${capacity.perSecond.toFixed(0)} answers of 200 a second (${CAPACITY_CONCURRENCY} at a time from ever new clients, ${CAPACITY_SECONDS} s, shedding off; ${JSON.stringify(capacity.outcome.statuses)}).`
      : ''),
  `Heavy heads: ${(HEAVY_HEAD.length / 1024).toFixed(1)} KB of gzip, a 2 MB head of \`<title>x</title>\` (in the scanner alone, on this machine, a 2 MB head of it took ` +
    'about 330 ms, of `<i>` or `<b>` 200 ms, `<base>` 185 ms, `<meta>`, `<link>`, `<script>` or `<div>` 110–140 ms, comments or long attribute lists under 15 ms).',
  '',
  ...markdownTable(rows(runs, capacity?.perSecond ?? null)),
  '',
  ...details(runs),
].join('\n');
console.log(`\n${report}`);
mkdirSync(path.dirname(args.out!), { recursive: true });
writeFileSync(args.out!, report + '\n');
console.log(`\n(written to ${path.relative(REPO_ROOT, args.out!)})`);
