// Starts the attackers' processes (attacker-process.ts) at a lower priority and talks to them.

import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../lib/corpus.js';
import type { AttackOutcome } from './attacks.js';
import type { AttackOrder, AttackReport } from './attacker-process.js';

/**
 * The niceness of the processes that stand for other machines (the attackers, the world's sites):
 * well below the service and the bystander, which are what is measured, without starving them
 * (at 10 a process gets about a tenth of a core that a process at 0 also wants).
 */
export const OTHER_MACHINES_NICENESS = 10;

/**
 * The attackers' processes for an attack, each running every fourth address. At niceness 10, one
 * process alone was starved with both cores loaded: its event loop ran 0.9 to 1.9 s late at p99,
 * so the 128 addresses sent 98 to 160 pages a second instead of the 230 the rate limit's pace
 * makes, and each answer's time included that lateness. Four get four times its share of the CPU
 * when they want it, and the same as one when the machine is quiet.
 */
export const ATTACKER_PROCESSES = 4;

export interface AttackFleet {
  /** Starts the attack now; `sent` resolves when its window is over, `done` once every request ended. */
  start(order: AttackOrder): { sent: Promise<number>; done: Promise<AttackOutcome> };
  kill(): void;
}

/**
 * Forks `processes` attackers' processes and waits until they are ready, so that starting the
 * attack costs no start-up. An order with `closedLoop` (the capacity alone) goes to the first alone.
 */
export async function startFleet(processes = 1): Promise<AttackFleet> {
  const children = await Promise.all(Array.from({ length: processes }, forkOne));
  return {
    start(order) {
      const runs =
        order.closedLoop === undefined ? children.map((child, index) => run(child, { ...order, shard: { index, of: processes } })) : [run(children[0]!, order)];
      return {
        sent: Promise.all(runs.map((r) => r.sent)).then((counts) => counts.reduce((a, b) => a + b, 0)),
        done: Promise.all(runs.map((r) => r.done)).then(merge),
      };
    },
    kill: () => children.forEach((child) => child.kill('SIGKILL')),
  };
}

async function forkOne(): Promise<ChildProcess> {
  const child = fork(path.join(REPO_ROOT, 'bench/fairness/attacker-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  os.setPriority(child.pid!, OTHER_MACHINES_NICENESS);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the attackers' process exited (${code}) before it was ready`)));
  });
  child.removeAllListeners('exit');
  return child;
}

function run(child: ChildProcess, order: AttackOrder): { sent: Promise<number>; done: Promise<AttackOutcome> } {
  const sent = new Promise<number>((resolve) => child.on('message', (m: AttackReport) => m.kind === 'sent' && resolve(m.sent)));
  const done = new Promise<AttackOutcome>((resolve) => {
    child.on('message', (m: AttackReport) => m.kind === 'done' && resolve(m.outcome));
    child.once('exit', () => resolve({ statuses: { 'attackers process gone': 1 }, answeredMs: [] }));
  });
  child.send(order);
  return { sent, done };
}

/** The processes' outcomes as one: statuses added, answers together, the latest event loop's delay. */
function merge(outcomes: AttackOutcome[]): AttackOutcome {
  const statuses: AttackOutcome['statuses'] = {};
  for (const { statuses: each } of outcomes) for (const [status, n] of Object.entries(each)) statuses[status] = (statuses[status] ?? 0) + n;
  const delays = outcomes.flatMap((o) => (o.loopDelay ? [o.loopDelay] : []));
  return {
    statuses,
    answeredMs: outcomes.flatMap((o) => o.answeredMs),
    ...(delays.length === 0 ? {} : { loopDelay: { p99: Math.max(...delays.map((d) => d.p99)), max: Math.max(...delays.map((d) => d.max)) } }),
  };
}
