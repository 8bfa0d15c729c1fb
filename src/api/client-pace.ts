// Every path pays, in time too: a client's requests, whatever their path, are let in at most
// `perSecond` a second after a burst of `burst`; the ones past that wait their turn, held, not
// refused. The paths outside the rate limit (/healthz, /openapi.yaml, the static files) are cheap,
// but one address with 32 keep-alive connections asking again as soon as each answer ends took
// thousands a second and most of a core, and a bystander's answers waited behind them. A 429
// would not have helped: it costs about what the answer does, and is asked again at once. A
// held request costs nothing but its connection, of which a client has MAX_CONNECTIONS_PER_CLIENT.
//
// The schedule is GCRA (the generic cell rate algorithm, as in ATM and many rate limiters): one
// number per client, the time its next request would be on schedule; a client is forgotten once
// that time has passed. A request whose turn is further away than `maxWaitMs` is answered 429 at
// once (a client that piles up far more requests than its connections carry, through a proxy).

import type { Next, ParameterizedContext } from 'koa';
import type { Config } from '../config.js';
import { RateLimited } from '../errors.js';
import type { ClientState } from './rate-limit.js';

export interface PaceClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Calls `fn` after `ms`. */
  after(ms: number, fn: () => void): void;
}

const realClock: PaceClock = {
  now: () => performance.now(),
  after: (ms, fn) => void setTimeout(fn, ms),
};

export interface PaceOptions {
  /** Requests a second per client after the burst; 0: no pacing. */
  perSecond: number;
  /** Requests a client may send at once after a quiet moment. */
  burst: number;
  /** Past this wait a request is refused with 429 instead of held. */
  maxWaitMs: number;
  clock?: PaceClock;
}

/** Clients past this many are swept of those back on schedule (so the map holds only the recent ones). */
const SWEEP_ABOVE = 4096;

export class ClientPace {
  /** Per client: when its next request is on schedule (GCRA's theoretical arrival time). */
  private readonly due = new Map<string, number>();
  private readonly clock: PaceClock;
  private sweepAt = SWEEP_ABOVE;

  constructor(private readonly options: PaceOptions) {
    this.clock = options.clock ?? realClock;
  }

  /**
   * How long the request of `client` arriving now must wait, in ms (0: at once), counting it as
   * sent; or null when that is past maxWaitMs (then it is not counted).
   */
  admit(client: string): number | null {
    const now = this.clock.now();
    const interval = 1000 / this.options.perSecond;
    const due = Math.max(this.due.get(client) ?? now, now);
    // A burst of `burst` may be sent at once: the schedule may run that far ahead of now.
    const wait = Math.max(0, due - now - (this.options.burst - 1) * interval);
    if (wait > this.options.maxWaitMs) return null;
    this.due.set(client, due + interval);
    if (this.due.size > this.sweepAt) this.sweep(now);
    return wait;
  }

  /** Waits for the turn of `client`'s request; throws RateLimited when it is too far away. */
  async turn(client: string): Promise<void> {
    const wait = this.admit(client);
    if (wait === null) throw new RateLimited(Math.ceil(this.options.maxWaitMs / 1000), 'Too many requests of this client at once');
    if (wait > 0) await new Promise<void>((resolve) => this.clock.after(wait, resolve));
  }

  /** Clients remembered (back on schedule ones are forgotten on the next sweep). */
  get size(): number {
    return this.due.size;
  }

  private sweep(now: number): void {
    for (const [client, due] of this.due) if (due <= now) this.due.delete(client);
    this.sweepAt = Math.max(SWEEP_ABOVE, this.due.size * 2);
  }
}

/** A request's turn is never more than this far away: past it, 429. */
const MAX_WAIT_MS = 2000;

/** The Koa middleware: holds each request until its client's turn (src/app.ts mounts it after identifyClient, before the other per-client checks). */
export function clientPace(config: Pick<Config, 'clientRequestsPerSecond' | 'clientRequestBurst'>, clock?: PaceClock) {
  const pace =
    config.clientRequestsPerSecond > 0
      ? new ClientPace({ perSecond: config.clientRequestsPerSecond, burst: config.clientRequestBurst, maxWaitMs: MAX_WAIT_MS, clock })
      : null;
  return async function clientPace(ctx: ParameterizedContext<ClientState>, next: Next): Promise<void> {
    if (pace === null) return next();
    await pace.turn(ctx.state.client!.key);
    // The client went away while it waited: nothing is done for it.
    if (ctx.req.socket.destroyed) return;
    return next();
  };
}
