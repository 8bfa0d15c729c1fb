// One measurement: a fresh LinkPeek, the bystander alone (the baseline), then the bystander while
// one attack class runs at one size, then the wait for /healthz to say `ok` again. The bystander
// and the /healthz poll run here; the attackers in processes of their own at a lower priority
// (attacker-fleet.ts), as the world's sites are (fairness.ts): they stand for other machines.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuMsOf, memoryOf } from '../lib/proc.js';
import { loopDelayOf, type AttackOutcome, type AttackPorts, type LoopDelay } from './attacks.js';
import { ATTACKER_PROCESSES, startFleet } from './attacker-fleet.js';
import { runBystander, warmUp, type Sample, type Site } from './bystander.js';
import { pollHealth, type HealthSample } from './client.js';
import type { AttackClass } from './names.js';
import { startService } from './service.js';

export interface FairnessWorld {
  dns: string;
  caFile: string;
  sites: Site[];
  attackPorts: AttackPorts;
}

export interface Timing {
  baselineMs: number;
  attackMs: number;
  /** The bystander's pace: one request every this many ms. */
  bystanderMs: number;
}

/** The target: `ok` again within this long after the attack's end; the wait stops there. */
export const RECOVERY_MS = 30_000;

export interface AttackRun {
  attack: AttackClass;
  size: number;
  samples: Sample[];
  attackStart: number;
  attackEnd: number;
  health: HealthSample[];
  /** ms after the attack's end of the first `ok`, or null when none came within RECOVERY_MS. */
  okAfterMs: number | null;
  attackerSent: number;
  attacker: AttackOutcome;
  /** The service's CPU time per second of wall time, alone and under attack. */
  cpuPerSecond: { baseline: number; attack: number };
  /** The service's peak resident memory, MB, at the end of the wait for `ok`. */
  peakRssMb: number;
  /** How late this process's event loop ran, where the bystander's answers are read, alone and under attack. */
  benchLoopDelay: { baseline: LoopDelay; attack: LoopDelay };
}

export async function measureAttack(checkout: string, world: FairnessWorld, attack: AttackClass, size: number, timing: Timing): Promise<AttackRun> {
  const service = await startService(checkout, world);
  const fleet = await startFleet(ATTACKER_PROCESSES);
  const run = `${attack}-${size}-${Date.now().toString(36)}`;
  let attackerDone: Promise<AttackOutcome> = Promise.resolve({ statuses: {}, answeredMs: [] });
  let result: AttackRun;
  try {
    const pool = await warmUp(service.origin, world.sites, run);
    const start = performance.now();
    const attackStart = start + timing.baselineMs;
    const attackEnd = attackStart + timing.attackMs;
    const health = pollHealth(service.origin, timing.baselineMs + timing.attackMs + RECOVERY_MS + 30_000);
    const cpu = [cpuMsOf(service.pid)];
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const bystander = runBystander(service.origin, world.sites, pool, run, attackEnd, timing.bystanderMs);
    await sleepUntil(attackStart);
    cpu.push(cpuMsOf(service.pid));
    const loopAlone = loopDelayOf(loop);
    loop.reset();
    const attackers = fleet.start({ attack, size, origin: service.origin, ports: world.attackPorts, durationMs: attackEnd - performance.now() });
    attackerDone = attackers.done;
    await sleepUntil(attackEnd);
    cpu.push(cpuMsOf(service.pid));
    const loopUnderAttack = loopDelayOf(loop);
    loop.disable();
    const attackerSent = await attackers.sent;
    const okAfterMs = await firstOkAfter(health.samples, attackEnd);
    const samples = await bystander;
    await health.stop();
    const logged = service.logOf(samples.flatMap((sample) => (sample.requestId === undefined ? [] : [sample.requestId])));
    for (const sample of samples) {
      const line = sample.requestId === undefined ? undefined : logged.get(sample.requestId);
      if (line === undefined) continue;
      sample.serviceMs = line.ms;
      if (sample.status !== 200) sample.reason = line.reason;
    }
    const { peakMb } = memoryOf(service.pid);
    result = {
      attack,
      size,
      samples,
      attackStart,
      attackEnd,
      health: health.samples,
      okAfterMs,
      attackerSent,
      attacker: { statuses: {}, answeredMs: [] },
      cpuPerSecond: { baseline: (cpu[1]! - cpu[0]!) / timing.baselineMs, attack: (cpu[2]! - cpu[1]!) / timing.attackMs },
      peakRssMb: peakMb,
      benchLoopDelay: { baseline: loopAlone, attack: loopUnderAttack },
    };
  } catch (err) {
    fleet.kill();
    throw err;
  } finally {
    await service.stop();
  }
  // Stopping the service ended the attackers' requests still in flight (counted as 'no answer').
  result.attacker = await attackerDone;
  fleet.kill();
  return result;
}

/**
 * The instance's capacity alone, in answers of 200 per second: a fresh service, ordinary fresh
 * pages `concurrency` at a time from ever new clients for `seconds` (after 2 s of warming).
 */
export async function measureCapacity(
  checkout: string,
  world: FairnessWorld,
  concurrency: number,
  seconds: number,
): Promise<{ perSecond: number; outcome: AttackOutcome }> {
  // Shedding off: what the instance finishes, not what it chooses to take on (with the ceiling on
  // pages in flight, 64 at a time from ever new clients were refused 86 times in 10 s).
  const service = await startService(checkout, world, { SHED_TARGET_MS: '0' });
  const fleet = await startFleet();
  try {
    await fleet.start({ attack: 'ordinary', size: 0, origin: service.origin, ports: world.attackPorts, durationMs: 2000, closedLoop: concurrency }).done;
    fleet.kill();
    const measured = await startFleet();
    const outcome = await measured.start({
      attack: 'ordinary',
      size: 0,
      origin: service.origin,
      ports: world.attackPorts,
      durationMs: seconds * 1000,
      closedLoop: concurrency,
    }).done;
    measured.kill();
    return { perSecond: (outcome.statuses['200'] ?? 0) / seconds, outcome };
  } finally {
    fleet.kill();
    await service.stop();
  }
}

/** Waits (at most RECOVERY_MS after `endAt`) for the first `ok` answered after `endAt`; ms after `endAt`, or null. */
async function firstOkAfter(samples: HealthSample[], endAt: number): Promise<number | null> {
  while (performance.now() < endAt + RECOVERY_MS) {
    const ok = samples.find((s) => s.at >= endAt && s.status === 'ok');
    if (ok) return ok.at - endAt;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));
