// One client asking a fleet over and over, its requests spread round-robin over the instances,
// and what it got: the tests of a store failing under load (an outage, a Sentinel failover) read
// how many answers it was allowed in any window.

import type { Service } from './service.js';

/** Answered 400 at once, and counted by the rate limit: a request that costs nothing else. */
const COUNTED = '/v1/metadata?url=ftp://x';

export interface Answer {
  at: number;
  status: number;
}

export interface SteadyClient {
  answers: Answer[];
  /** Stops asking; resolves once the last request is answered. */
  stop(): Promise<void>;
}

export function steadyClient(instances: Service[], localAddress: string, pauseMs: number): SteadyClient {
  const answers: Answer[] = [];
  let asking = true;
  const done = (async () => {
    for (let i = 0; asking; i++) {
      const res = await instances[i % instances.length]!.request(COUNTED, { localAddress });
      answers.push({ at: Date.now(), status: res.status });
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    answers,
    async stop() {
      asking = false;
      await done;
    },
  };
}

/** The statuses answered, each once, sorted. */
export function statusesOf(answers: Answer[]): number[] {
  return [...new Set(answers.map((a) => a.status))].sort();
}

/** The most answers allowed (400: counted, not refused) in any `windowMs`. */
export function mostAllowedInAnyWindow(answers: Answer[], windowMs: number): number {
  const allowed = answers.filter((a) => a.status === 400).map((a) => a.at);
  return Math.max(0, ...allowed.map((at) => allowed.filter((t) => t >= at && t < at + windowMs).length));
}
