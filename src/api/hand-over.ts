// How the fast path (api/fast-path.ts) hands a request to Koa: as an argument of Koa's request
// listener, which becomes the state of the context Koa creates for it. A cached hit the rate limit
// refuses is handed over with the decision already taken, so that Koa answers the 429 by its one
// error path and api/rate-limit.ts does not count the request a second time.

import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import type { RateDecision } from '../store/rate-limit.js';

/** What the fast path already did for a request it hands over (ctx.state in Koa). */
export interface HandedOver {
  /** The rate limit's decision for this request: Koa applies it instead of counting again. */
  counted?: RateDecision;
}

/** Koa's request listener with the context's first state as its third argument. */
export type HandOver = (req: IncomingMessage, res: ServerResponse, handedOver?: HandedOver) => void;

export class ServiceKoa extends Koa {
  /** Set for the one synchronous call of Koa's listener, which creates its context first. */
  private handedOver: HandedOver | undefined;

  /** Koa's own listener (callback()), taking what the caller already did for the request. */
  handOver(): HandOver {
    const listener = this.callback();
    return (req, res, handedOver) => {
      if (handedOver === undefined) return void listener(req, res);
      this.handedOver = handedOver;
      try {
        void listener(req, res);
      } finally {
        this.handedOver = undefined;
      }
    };
  }

  override createContext<StateT = Koa.DefaultState>(req: IncomingMessage, res: ServerResponse): Koa.ParameterizedContext<StateT> {
    const ctx = super.createContext<StateT>(req, res);
    if (this.handedOver !== undefined) Object.assign(ctx.state as object, this.handedOver);
    return ctx;
  }
}
