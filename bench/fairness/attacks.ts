// The attackers: who they are (addresses), what they ask for (one URL maker per attack class) and
// how fast (never past the rate limit).

import { randomBytes } from 'node:crypto';
import type { IntervalHistogram } from 'node:perf_hooks';
import { get, metadataUrl, type From } from './client.js';
import { isByteAttack, runByteAttack } from './byte-attacks.js';
import { attackZone, type AttackClass } from './names.js';

/** The service's default rate limit: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client. */
const RATE_LIMIT_MAX = 20;
const RATE_LIMIT_WINDOW_MS = 10_000;
/**
 * Milliseconds between two requests of one client: 18 per window, below the sliding window's 20
 * however the timers drift. The bystander asks at the same pace.
 */
export const PACE_MS = Math.ceil(RATE_LIMIT_WINDOW_MS / (RATE_LIMIT_MAX - 2));

/** URLs asked at once, then a pause of PACE_MS per URL: "3 names per address per burst" for DNS. */
const BURST: Record<PageAttack, number> = { ordinary: 1, drip: 1, nodns: 3, assets: 1, heavy: 1 };

type PageAttack = 'ordinary' | 'drip' | 'nodns' | 'assets' | 'heavy';

/** An attacker's requests end at the latest this long after they were sent. */
const ATTACKER_TIMEOUT_MS = 30_000;

export const CLASS_LABEL: Record<AttackClass, string> = {
  ordinary: 'ordinary fresh pages (no attack)',
  drip: 'dripping pages',
  nodns: 'DNS never answers',
  assets: 'hanging image/icon/oEmbed hosts',
  heavy: 'heavy heads (2 MB, gzip)',
  images: '4 MB images through the proxy',
  'keepalive-openapi': 'keep-alive connections on /openapi.yaml (one address)',
  'keepalive-healthz': 'keep-alive connections on /healthz (one address)',
};

export interface Attacker {
  k: number;
  /** Where its requests come from (a new IPv6 address of its /64 for each request). */
  from(): From;
}

/**
 * Attacker k: even k on a real IPv4 source address (127.2.x.y); odd k an IPv6 client of its own /64
 * in a /48 of its own (2001:db8:a<k>:1::/64, a new interface id per request: one subscriber, whose
 * site's /48 budget it does not share with the other attackers). Traffic may only go to 127.0.0.0/8 or ::1,
 * and adding thousands of IPv6 addresses to an interface would be a change to the machine; so
 * those come through one loopback "load balancer" address (127.5.0.1) that names them in
 * X-Forwarded-For, which the service reads with TRUST_PROXY set, and counts per /64 as it would
 * real IPv6 peers.
 */
export function attackers(count: number): Attacker[] {
  return Array.from({ length: count }, (_, k): Attacker => {
    if (k % 2 === 0) {
      const address = `127.2.${Math.floor(k / 250)}.${1 + (k % 250)}`;
      return { k, from: () => ({ address }) };
    }
    return {
      k,
      from: () => ({
        address: '127.5.0.1',
        forwardedFor: `2001:db8:${(0xa000 + k).toString(16)}:1:${randomBytes(8).toString('hex').match(/.{4}/g)!.join(':')}`,
      }),
    };
  });
}

export interface AttackPorts {
  ordinary: number;
  drip: number;
  assets: number;
  heavy: number;
}

/** A new random name in attacker k's zone of `attack`: a registrable domain never asked before. */
function randomPage(attack: PageAttack, k: number, ports: AttackPorts): string {
  const name = `r${randomBytes(6).toString('hex')}.${attackZone(attack, k)}`;
  const port = attack === 'nodns' ? 80 : ports[attack];
  return `http://${name}:${port}/`;
}

/** Status → count of the attackers' answers. */
export type StatusCounts = Record<string, number>;

/** What the attackers got: statuses, and how long each request that got any answer took. */
export interface AttackOutcome {
  statuses: StatusCounts;
  /** Milliseconds of each request answered (any status: a 503 or 429 at once counts as an answer). */
  answeredMs: number[];
  /**
   * How late the attackers' own event loop ran over the attack (ms): their process is at a lower
   * priority, so with the cores loaded it may be what held their answers, not the service.
   */
  loopDelay?: LoopDelay;
}

/**
 * Which of the attackers one process runs: those whose k is `index` modulo `of`. A byte attack
 * (one agent, or one image host) runs whole in the first process.
 */
export interface Shard {
  index: number;
  of: number;
}

/** An event loop's delay, p99 and max, ms (monitorEventLoopDelay). */
export interface LoopDelay {
  p99: number;
  max: number;
}

/** What a monitorEventLoopDelay histogram (ns) has seen, as a LoopDelay. */
export function loopDelayOf(histogram: IntervalHistogram): LoopDelay {
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}

/**
 * Runs the attackers of `shard` from now until `endAt` (performance.now()), each at PACE_MS per request,
 * starting at a random point of its first pause so they do not all ask in step. Resolves with the
 * answers' statuses once the last request has ended (or timed out, or the service was stopped).
 */
export function runAttack(
  attack: AttackClass,
  count: number,
  origin: string,
  ports: AttackPorts,
  endAt: number,
  shard: Shard = { index: 0, of: 1 },
): { sent: () => number; done: Promise<AttackOutcome> } {
  if (isByteAttack(attack)) {
    if (shard.index === 0) return runByteAttack(attack, count, origin, endAt, PACE_MS);
    return { sent: () => 0, done: Promise.resolve({ statuses: {}, answeredMs: [] }) };
  }
  const statuses: StatusCounts = {};
  const answeredMs: number[] = [];
  const pending: Promise<void>[] = [];
  const burst = BURST[attack];
  const everyMs = burst * PACE_MS;
  const maxRounds = Math.ceil((endAt - performance.now()) / everyMs) + 1;
  const mine = attackers(count).filter((attacker) => attacker.k % shard.of === shard.index);
  const loops = mine.map(async (attacker) => {
    await sleep(Math.random() * everyMs);
    for (let round = 0; round < maxRounds && performance.now() < endAt; round++) {
      const started = performance.now();
      for (let b = 0; b < burst; b++) {
        pending.push(
          get(metadataUrl(origin, randomPage(attack, attacker.k, ports)), attacker.from(), ATTACKER_TIMEOUT_MS).then((res) => {
            const key = String(res.status || 'no answer');
            statuses[key] = (statuses[key] ?? 0) + 1;
            if (res.status > 0) answeredMs.push(res.ms);
          }),
        );
      }
      await sleep(Math.max(0, started + everyMs - performance.now()));
    }
  });
  return {
    sent: () => pending.length,
    done: Promise.all(loops).then(async () => {
      await Promise.all(pending);
      return { statuses, answeredMs };
    }),
  };
}

/**
 * The instance's capacity alone: `concurrency` requests at a time, each for a fresh ordinary page
 * from a new IPv6 /48 (named in X-Forwarded-For, so no client's rate limit or share binds), from
 * now until `endAt`. Resolves with the outcome once the last has ended.
 */
export async function runCapacity(concurrency: number, origin: string, ports: AttackPorts, endAt: number): Promise<AttackOutcome> {
  const statuses: StatusCounts = {};
  const answeredMs: number[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < endAt) {
        const k = n++;
        const from = { address: '127.5.0.1', forwardedFor: `2001:db8:${(k % 0x8000).toString(16)}:c::1` };
        const res = await get(metadataUrl(origin, randomPage('ordinary', k % 128, ports)), from, ATTACKER_TIMEOUT_MS);
        const key = String(res.status || 'no answer');
        statuses[key] = (statuses[key] ?? 0) + 1;
        if (res.status > 0) answeredMs.push(res.ms);
      }
    }),
  );
  return { statuses, answeredMs };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
