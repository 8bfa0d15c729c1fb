// The attackers: who they are (addresses), what they ask for (one URL maker per attack class) and
// how fast (never past the rate limit).

import { randomBytes } from 'node:crypto';
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
const BURST: Record<PageAttack, number> = { drip: 1, nodns: 3, assets: 1, heavy: 1 };

type PageAttack = 'drip' | 'nodns' | 'assets' | 'heavy';

/** An attacker's requests end at the latest this long after they were sent. */
const ATTACKER_TIMEOUT_MS = 30_000;

export const CLASS_LABEL: Record<AttackClass, string> = {
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
 * (2001:db8:a:k::/64, a new interface id per request). Traffic may only go to 127.0.0.0/8 or ::1,
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
      from: () => ({ address: '127.5.0.1', forwardedFor: `2001:db8:a:${k.toString(16)}:${randomBytes(8).toString('hex').match(/.{4}/g)!.join(':')}` }),
    };
  });
}

export interface AttackPorts {
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

/**
 * Runs every attacker from now until `endAt` (performance.now()), each at PACE_MS per request,
 * starting at a random point of its first pause so they do not all ask in step. Resolves with the
 * answers' statuses once the last request has ended (or timed out, or the service was stopped).
 */
export function runAttack(
  attack: AttackClass,
  count: number,
  origin: string,
  ports: AttackPorts,
  endAt: number,
): { sent: () => number; done: Promise<StatusCounts> } {
  if (isByteAttack(attack)) return runByteAttack(attack, count, origin, endAt, PACE_MS);
  const statuses: StatusCounts = {};
  const pending: Promise<void>[] = [];
  const burst = BURST[attack];
  const everyMs = burst * PACE_MS;
  const maxRounds = Math.ceil((endAt - performance.now()) / everyMs) + 1;
  const loops = attackers(count).map(async (attacker) => {
    await sleep(Math.random() * everyMs);
    for (let round = 0; round < maxRounds && performance.now() < endAt; round++) {
      const started = performance.now();
      for (let b = 0; b < burst; b++) {
        pending.push(
          get(metadataUrl(origin, randomPage(attack, attacker.k, ports)), attacker.from(), ATTACKER_TIMEOUT_MS).then((res) => {
            const key = String(res.status || 'no answer');
            statuses[key] = (statuses[key] ?? 0) + 1;
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
      return statuses;
    }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
