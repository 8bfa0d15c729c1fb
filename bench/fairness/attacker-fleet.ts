// Starts the attackers' process (attacker-process.ts) at a lower priority and talks to it.

import { fork } from 'node:child_process';
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

export interface AttackFleet {
  /** Starts the attack now; `sent` resolves when its window is over, `done` once every request ended. */
  start(order: AttackOrder): { sent: Promise<number>; done: Promise<AttackOutcome> };
  kill(): void;
}

/** Forks the attackers' process and waits until it is ready, so that starting the attack costs no start-up. */
export async function startFleet(): Promise<AttackFleet> {
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
  return {
    start(order) {
      const sent = new Promise<number>((resolve) => child.on('message', (m: AttackReport) => m.kind === 'sent' && resolve(m.sent)));
      const done = new Promise<AttackOutcome>((resolve) => {
        child.on('message', (m: AttackReport) => m.kind === 'done' && resolve(m.outcome));
        child.once('exit', () => resolve({ statuses: { 'attackers process gone': 1 }, answeredMs: [] }));
      });
      child.send(order);
      return { sent, done };
    },
    kill: () => void child.kill('SIGKILL'),
  };
}
