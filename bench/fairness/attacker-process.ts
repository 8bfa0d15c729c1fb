// The attackers (a share of them: AttackOrder.shard) in a process of their own, started by
// attacker-fleet.ts at a lower priority: real attackers are other machines, so the load they make
// must not take the CPU from the service or from the bystander (the benchmark's own process).
// Told what to run over IPC; says 'started', then how many requests it sent once the attack
// window is over, then the answers' statuses and how late its event loop ran.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loopDelayOf, runAttack, runCapacity, type AttackOutcome, type AttackPorts, type Shard } from './attacks.js';
import type { AttackClass } from './names.js';

export interface AttackOrder {
  attack: AttackClass;
  size: number;
  origin: string;
  ports: AttackPorts;
  durationMs: number;
  /** Instead of the attack: ordinary pages, this many at a time from ever new clients (the capacity alone). */
  closedLoop?: number;
  /** The attackers this process runs (all by default). */
  shard?: Shard;
}

export type AttackReport = { kind: 'sent'; sent: number } | { kind: 'done'; outcome: AttackOutcome };

process.once('message', (order: AttackOrder) => {
  const endAt = performance.now() + order.durationMs;
  if (order.closedLoop !== undefined) {
    void runCapacity(order.closedLoop, order.origin, order.ports, endAt).then((outcome) =>
      process.send!({ kind: 'done', outcome } satisfies AttackReport, () => process.exit(0)),
    );
    return;
  }
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const run = runAttack(order.attack, order.size, order.origin, order.ports, endAt, order.shard);
  let sentReported = false;
  const reportSent = () => {
    if (sentReported) return;
    sentReported = true;
    process.send!({ kind: 'sent', sent: run.sent() } satisfies AttackReport);
  };
  setTimeout(reportSent, order.durationMs);
  // An attack whose requests all end at once (the keep-alive ones) may be done before that timer.
  void run.done.then((outcome) => {
    loop.disable();
    outcome.loopDelay = loopDelayOf(loop);
    reportSent();
    process.send!({ kind: 'done', outcome } satisfies AttackReport, () => process.exit(0));
  });
});
process.send!('ready');
