// What opening a connection cost (DNS, then TCP and TLS), told to the fetch whose request went out
// on it first, so a response can say how long its lookups and connects took (Server-Timing). A
// fetch that reused a pooled connection paid for neither: its timings stay null.
//
// undici does not say which connection carried a request, so two of its diagnostics channels are
// joined: `undici:request:create` fires synchronously inside agent.request (claim() marks the
// requests created meanwhile as the fetch's), and `undici:client:sendHeaders` names the request
// and the socket it is written to (the socket our connector returned, recordConnection()).

import diagnostics from 'node:diagnostics_channel';

export interface ConnectionTimings {
  /** Time spent resolving the host name; null when no lookup was needed (IP literal, reused connection). */
  dnsMs: number | null;
  /** TCP (and TLS) handshake time; null when a pooled connection was reused. */
  connectMs: number | null;
}

/** Sockets opened by the connector and not yet used by a request. */
const opened = new WeakMap<object, ConnectionTimings>();
/** undici's request objects → the fetch that created them. */
const owners = new WeakMap<object, FetchTimings>();
let dispatching: FetchTimings | null = null;
let watching = false;

function watchUndici(): void {
  if (watching) return;
  watching = true;
  diagnostics.subscribe('undici:request:create', (message) => {
    if (dispatching) owners.set((message as { request: object }).request, dispatching);
  });
  diagnostics.subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request: object; socket: object };
    const cost = opened.get(socket);
    if (!cost) return;
    opened.delete(socket); // the first request paid for the connection; the next ones reuse it
    owners.get(request)?.add(cost);
  });
}

/** The connector's record of a new connection. */
export function recordConnection(socket: object, cost: ConnectionTimings): void {
  opened.set(socket, cost);
}

/** The DNS and connect time of one fetch, summed over the hops that opened a connection. */
export class FetchTimings implements ConnectionTimings {
  dnsMs: number | null = null;
  connectMs: number | null = null;

  constructor() {
    watchUndici();
  }

  /** Runs `dispatch` (an agent.request call), attributing the requests it creates to this fetch. */
  claim<T>(dispatch: () => T): T {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the module-level marker undici's diagnostics channel reads
    dispatching = this;
    try {
      return dispatch();
    } finally {
      dispatching = null;
    }
  }

  add(cost: ConnectionTimings): void {
    if (cost.dnsMs !== null) this.dnsMs = (this.dnsMs ?? 0) + cost.dnsMs;
    if (cost.connectMs !== null) this.connectMs = (this.connectMs ?? 0) + cost.connectMs;
  }

  snapshot(): ConnectionTimings {
    return { dnsMs: round(this.dnsMs), connectMs: round(this.connectMs) };
  }
}

function round(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms * 100) / 100;
}
