// Past capacity, the data endpoints' first step: a request of a client the load shedder is
// refusing now is answered 503 Overloaded before the rate limit counts it
// (fairness/load-shedder.ts, refuseAtDoor). The instance's own overload costs no client any of
// its budget, and no 10 s block. A request on the path with another method (a 405) has no page
// to refuse and goes on.

import type { Context, Next } from 'koa';
import type { LoadShedder } from '../fairness/load-shedder.js';
import type { ClientState } from './rate-limit.js';
import { routeOf } from './route.js';

export function shedDoor(shedder: Pick<LoadShedder, 'refuseAtDoor'> | null) {
  return function shedDoor(ctx: Context, next: Next): Promise<void> {
    // identifyClient runs before every route's chain (src/app.ts).
    if (shedder !== null && routeOf(ctx).operation !== null) shedder.refuseAtDoor((ctx.state as ClientState).client!.key);
    return next();
  };
}
