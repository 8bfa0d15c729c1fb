// Whether one more waiter may join the queues of fairness/fair-queue.ts. Three bounds, each with its
// own answer when full: a client's own queue refuses that client (its own excess); a destination's
// queue and the instance's make room by refusing the newest waiter of the client using most, if it
// uses more than the asker would (fq_codel drops from the fattest flow), and refuse the asker only
// when nobody queued uses more: attackers filling a queue are refused, a bystander is not.

import { Overloaded } from '../errors.js';
import type { ClientQueues, ClientState } from './client-queues.js';

/** A client's (or destination's) own queue holds this many times its cap. */
export const OWN_QUEUE_FACTOR = 4;

export interface AdmissionLimits {
  perClient: number;
  perHost: number;
  maxQueued: number;
  unit: 'fetch' | 'lookup' | 'scan';
}

/**
 * Why the queues refuse `client` one more waiter for `host`, or null, maybe after refusing a
 * heavier client's waiter. `weight` rates what a client uses; `capped` is false for the service's
 * own work, which no per-client bound holds.
 */
export function admissionRefusal(
  queues: ClientQueues,
  client: ClientState,
  host: string,
  limits: AdmissionLimits,
  weight: (client: ClientState) => number,
  capped: boolean,
): string | null {
  const { perClient, perHost, maxQueued, unit } = limits;
  const units = unit === 'fetch' ? 'fetches' : `${unit}s`;
  const pushOut = (scope: string | null) => queues.refuseHeaviest(client, scope, weight, () => new Overloaded(`a client using less needed the ${unit} queue`));
  if (capped && perClient > 0 && client.waiting.length >= OWN_QUEUE_FACTOR * perClient) {
    return `the client has its full share of ${units} in flight and queued`;
  }
  if (perHost > 0 && queues.waitingFor(host) >= OWN_QUEUE_FACTOR * perHost && !pushOut(host)) {
    return `the destination has its full share of ${units} in flight and queued`;
  }
  if (queues.waitingCount >= maxQueued && !pushOut(null)) return `every ${unit} slot taken and the queue full`;
  return null;
}
