// Admission past capacity: the instance takes on only the pages it can finish soon, and refuses
// the rest at once (503 Overloaded with Retry-After), heaviest clients first.
//
// When is the instance past its capacity? When a queue stands, as CoDel (RFC 8289, Linux's
// fq_codel) tells it: not when a burst made a few requests wait, but when over a whole interval
// even the least delayed waited longer than the target. Four delays are watched, each its own
// CoDel detector, and any one standing means overload:
//   - the event loop: how late it runs (a timer's lateness), or that it was never idle all interval
//     long (its utilization) and ran as late as the queues' target at least once. A loop busy for
//     a whole interval had ready work waiting all along, the kernel's queue of connections not yet
//     accepted among it, where no timer sees the wait: a timer fires on time whenever one turn of
//     the loop is short, while connections wait their turn for a second and more (measured with
//     both cores loaded: 260 connections not accepted for seconds, the least lateness 0 ms);
//   - how long fetch, lookup and scan grants (three queues) waited that their client's share allowed (a client
//     waiting on its own excess is its share working, not the instance's congestion);
// An interval with one grant at once, or one timer on time, has no standing queue.
//
// Whom to refuse? While queues stand, a growing fraction of the load, taken from the heaviest
// clients first (weight: requests in flight beyond the one any client waiting for its answer holds,
// plus recent scan CPU and recent asks, refused ones too, in the shared ledger, as the fair queue
// weighs them): at each interval's end the clients are ranked by weight,
// and those whose weights add up to that fraction of the total are refused, the last of them only
// for its part, at random (so a client alone is refused that fraction of its pages, not all of
// them). The fraction grows with each standing interval (doubling, or at once to the share by
// which the worst delay is past its target, once a quarter is refused) and shrinks with each clear one, as a drop probability
// does in PIE (RFC 8033). A client with nothing in flight and nothing recent weighs
// nothing and is never refused, nor a client first seen since the ranking; a light bystander is
// admitted first, and a refused client asking as often as ever stays heavier than it. Work already admitted is never cut: fair by refusing at the door, never by
// truncation.
//
// How much to take on? A fraction of the arrivals refused acts late: pages already admitted drain
// only as they end, a second or two past capacity, so the queues stand on after the fraction has
// grown, and clear long after, while it falls (measured: 0.95 down to 0.1 and back every 3 to 6 s).
// So a queue standing, or an event loop never idle all interval, also sets a ceiling on pages in
// flight, a concurrency limit as Netflix's concurrency-limits adapt one: a tenth below what was in
// flight in that interval after a queue stood, half after the loop was never idle, and lower with
// each further such interval; higher after each clear interval in which it refused a page (by the
// loop's spare time when the loop set it); lifted after 3 s clear in which it refused none. While
// the pages in flight reach it, a page of any client but the lightest 5% of the load (the same
// ranking) is refused, whatever the fraction: what the instance works on is bounded at once, and
// refusals end as soon as pages do.

import { performance } from 'node:perf_hooks';
import { Overloaded } from '../errors.js';
import { EventCount } from './event-count.js';
import { COST_HALF_LIFE_MS, type ClientLedger } from './client-ledger.js';

/** A delay source that CoDel watches. */
export type DelaySource = 'event_loop' | 'fetches' | 'lookups' | 'scans';

/** A fair queue, as the shedder reads it (fairness/fair-queue.ts). */
export interface WaitSource {
  takeLeastWait(): number | null;
}

export interface LoadShedderOptions {
  ledger: ClientLedger;
  /** The queues whose waits are watched, read at each interval's end. */
  queues: Partial<Record<Exclude<DelaySource, 'event_loop'>, WaitSource | null>>;
  /**
   * A queue stands when its least wait over an interval exceeds this (ms); the event loop, when
   * its timer ran later than a fifth of it all interval long. 0 turns shedding off.
   */
  targetMs: number;
  /** The clock (ms); tests drive it. */
  now?: () => number;
  /** Uniform in [0, 1): whether a page of a client refused in part is (Math.random; tests fix it). */
  random?: () => number;
  /**
   * The share of the time since its last call that the event loop was busy (read at each interval's
   * end; watchEventLoop() reads performance.eventLoopUtilization() unless tests give their own).
   */
  loopBusy?: () => number;
}

/** CoDel's interval: about a worst round trip of the work queued; a page takes a few hundred ms. */
export const SHED_INTERVAL_MS = 500;
/** The fraction of the load refused after the first standing interval; it doubles after each further one. */
const FIRST_FRACTION = 1 / 16;
/**
 * The share of the load refused at most: the lightest 5% of it is always admitted, so that clients
 * using little (a bystander asking a page now and then) are never refused for the heaviest ones.
 */
const MAX_FRACTION = 0.95;
/** The fraction from which a standing interval may raise it at once to the excess of the delay over its target. */
const JUMP_FROM = 1 / 4;
/** After a clear interval the fraction is kept at this share; below MIN_FRACTION it is 0. */
const CLEAR_DECAY = 0.7;
const MIN_FRACTION = 1 / 64;
/**
 * The ceiling on pages in flight (LoadShedder.limit): after a standing interval it is this share
 * of the most that were in flight in it (or of itself, if lower), never below MIN_LIMIT.
 */
const LIMIT_BACKOFF = 0.9;
/** After a clear interval in which the ceiling a queue set refused a page, it rises by this share of itself (by one at least). */
const LIMIT_GROWTH = 0.05;
/**
 * After an interval in which the event loop was never idle, the ceiling is half the most that were
 * in flight in it (or of itself), never below MIN_LIMIT_SATURATED, as TCP halves its window on a
 * loss. A tenth was too little: measured quiet, the control at 384 addresses on a machine that
 * finishes 630 to 770 pages a second, the loop stayed saturated for the attack's first 8 s while the
 * ceiling came down by tenths from 54 to 5; the listener's queue held 400 to 512 of 511 for 4 s,
 * and the connections it had held back reached the rate limit together, so that 2,300 to 7,100 of
 * the attackers' answers were 429s (a 10 s block each). Halved, it was saturated 2 s and none were.
 */
const LIMIT_BACKOFF_SATURATED = 0.5;
/**
 * A ceiling the saturated loop set grows, after each clear interval in which it refused a page,
 * by the loop's spare time: by LOOP_BUSY_TARGET / busy, a gradient as in Netflix's concurrency
 * limits (there the ratio of round trips, here of the loop's utilization), at most doubling, and
 * not at all while the loop is busier than the target. Grown by 5% an interval, it took 8 s to
 * climb back from 5 to 16 while the loop was busy 33 to 88% of the time and up to 250 pages a second
 * were refused.
 */
const LOOP_BUSY_TARGET = 0.85;
const LIMIT_GROWTH_MAX = 2;
/** The ceiling never falls below this many pages in flight: a scan slot each, and a page being fetched for each. */
const MIN_LIMIT = 8;
/**
 * While the event loop is never idle, it falls as low as this instead: the main thread is then what
 * is short, and connections wait unaccepted in the kernel's queue, where nothing counts them. With
 * both cores loaded and the control at the rate limit's pace (about 220 connections a second), the
 * ceiling at 8 left the listener's queue full (511) for the whole attack: 33,000 connections were
 * dropped and sent again 1 and 3 s later, and the bystander's p50 was 2.9 to 4.3 s. At 2, 255 were
 * dropped, and its p50 was 0.4 to 1.5 s (three runs each). The price is goodput: 28 to 49 pages a
 * second, not 64 to 72. Heavy heads, loaded, were as far from their bounds at either floor (two runs each).
 */
const MIN_LIMIT_SATURATED = 2;
/** Clear intervals in which the ceiling refused nothing, in a row, after which it is lifted (3 s). */
const LOOSE_TO_LIFT = 6;
/** Refusals and admissions are counted over this window (s) for /healthz. */
const RATE_WINDOW_S = 10;
/** Retry-After, in seconds, at most. */
const MAX_RETRY_AFTER_S = 10;
/** How often the event loop's lateness is sampled. */
const LOOP_TICK_MS = 20;
/** The event loop stands at a fifth of the queues' target: every request waits on it, cached ones too. */
const LOOP_TARGET_SHARE = 1 / 5;
/** The event loop also stands when it was idle less than this share of an interval (25 ms of 500). */
const LOOP_IDLE_SHARE = 0.05;

export interface ShedStats {
  /** True while a fraction of the load is refused. */
  shedding: boolean;
  /** The share of the load (the clients' weight) refused now, heaviest clients first. */
  fraction: number;
  /** The pages in flight past which the heaviest clients' are refused; null when there is no ceiling. */
  ceiling: number | null;
  /** Requests refused per second over the last 10 s. */
  refusedPerSecond: number;
  /** Requests admitted per second over the last 10 s. */
  admittedPerSecond: number;
  /** Which delays stood in the last interval. */
  standing: DelaySource[];
}

/** The clients that use anything, heaviest first, with their weights, and the weights' total. */
interface Weighed {
  clients: Array<[string, number]>;
  total: number;
}

/** One delay source's CoDel state over the current interval. */
interface Detector {
  least: number;
  /** The greatest delay of the interval. */
  most: number;
  samples: number;
}

export class LoadShedder {
  private readonly now: () => number;
  private readonly inFlight = new Map<string, number>();
  private readonly detectors = new Map<DelaySource, Detector>();
  private intervalEnd: number;
  private fraction = 0;
  /** The clients refused until the next interval's end, each with the chance that one of its pages is. */
  private refusing = new Map<string, number>();
  /** The least weight among them: Retry-After counts from it. */
  private line = Infinity;
  /** Pages in flight, and the most that were in the current interval. */
  private total = 0;
  private peak = 0;
  /**
   * The ceiling on pages in flight: once a queue has stood, a page of one of the heaviest clients
   * (`heavy`) is refused while this many are in flight. Infinity: none (no queue stood lately).
   */
  private limit = Infinity;
  /** Whether the loop's saturation set the ceiling last (it then grows by the loop's spare time), or a standing queue. */
  private limitByLoop = false;
  /** The clients whose pages the ceiling refuses: all but the lightest 5% of the load, each with its chance, and their least weight. */
  private heavy = new Map<string, number>();
  private heavyLine = Infinity;
  /** Pages the ceiling refused in the current interval; clear intervals in a row in which it refused none. */
  private gateRefusals = 0;
  private looseIntervals = 0;
  private standing: DelaySource[] = [];
  private readonly refused: EventCount;
  private readonly admitted: EventCount;
  private loopTimer: NodeJS.Timeout | null = null;
  private loopBusy: (() => number) | null;

  constructor(private readonly opts: LoadShedderOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.loopBusy = opts.loopBusy ?? null;
    this.intervalEnd = this.now() + SHED_INTERVAL_MS;
    this.refused = new EventCount(RATE_WINDOW_S, this.now);
    this.admitted = new EventCount(RATE_WINDOW_S, this.now);
  }

  /** Samples how late the event loop runs, every LOOP_TICK_MS, until close(). */
  watchEventLoop(): void {
    if (this.loopTimer !== null || this.opts.targetMs <= 0) return;
    let expected = performance.now() + LOOP_TICK_MS;
    this.loopTimer = setInterval(() => {
      const now = performance.now();
      this.observe('event_loop', Math.max(0, now - expected));
      expected = now + LOOP_TICK_MS;
    }, LOOP_TICK_MS);
    this.loopTimer.unref();
    if (this.loopBusy === null) {
      let last = performance.eventLoopUtilization();
      this.loopBusy = () => {
        const use = performance.eventLoopUtilization();
        const busy = performance.eventLoopUtilization(use, last).utilization;
        last = use;
        return busy;
      };
    }
  }

  close(): void {
    if (this.loopTimer !== null) clearInterval(this.loopTimer);
    this.loopTimer = null;
  }

  /** One delay of `source`, in ms: a grant's wait, or how late a timer ran. */
  observe(source: DelaySource, delayMs: number): void {
    this.tick();
    this.record(source, delayMs);
  }

  private record(source: DelaySource, delayMs: number): void {
    const d = this.detectors.get(source);
    if (d === undefined) this.detectors.set(source, { least: delayMs, most: delayMs, samples: 1 });
    else {
      d.least = Math.min(d.least, delayMs);
      d.most = Math.max(d.most, delayMs);
      d.samples++;
    }
  }

  /**
   * Admits one page for `client` (its key; null: the service's own work, always admitted)
   * and returns what ends it, or throws Overloaded when the instance is shedding and the client is
   * among the heaviest.
   */
  admit(client: string | null): () => void {
    this.tick();
    if (client !== null) this.opts.ledger.ask(client);
    if (client === null) {
      this.admitted.add();
      return () => {};
    }
    const refusal = this.refusal(client);
    if (refusal !== null) throw refusal;
    this.admitted.add();
    this.inFlight.set(client, (this.inFlight.get(client) ?? 0) + 1);
    this.peak = Math.max(this.peak, ++this.total);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.total--;
      const left = this.inFlight.get(client)! - 1;
      if (left === 0) this.inFlight.delete(client);
      else this.inFlight.set(client, left);
    };
  }

  /**
   * The door of the data endpoints, before the rate limit counts a request (api/shed-door.ts):
   * throws Overloaded for a request of `client` that admit() would refuse now, noting its ask as
   * admit() does; admits nothing. A request the instance refuses for its own overload then spends
   * none of its client's budget: past capacity, connections held back in the kernel's queue reach
   * the instance together, and counted, the 503s they got blocked their clients for 10 s each once
   * the queue cleared (measured, quiet, 384 addresses: every attacker blocked at once, no page
   * answered for 10 s while the event loop was idle 70% of the time).
   */
  refuseAtDoor(client: string): void {
    this.tick();
    const refusal = this.refusal(client);
    if (refusal === null) return;
    this.opts.ledger.ask(client);
    throw refusal;
  }

  /** The refusal of a page of `client` now, counted as one, or null when it is admitted. */
  private refusal(client: string): Overloaded | null {
    if (this.draws(this.refusing.get(client))) {
      this.refused.add();
      return new Overloaded('the instance is past its capacity and refuses the clients using most first', this.retryAfter(this.weightOf(client), this.line));
    }
    if (this.total >= this.limit && this.draws(this.heavy.get(client))) {
      this.refused.add();
      this.gateRefusals++;
      return new Overloaded(
        'the instance has as many pages in flight as it finishes in time and refuses the clients using most first',
        this.retryAfter(this.weightOf(client), this.heavyLine),
      );
    }
    return null;
  }

  /** Whether a client with this chance of being refused (undefined: none) is refused one page now. */
  private draws(chance: number | undefined): boolean {
    return chance !== undefined && (chance >= 1 || (this.opts.random ?? Math.random)() < chance);
  }

  /**
   * Notes an ask of `client` that the rate limit refused before it reached admit(). A client the
   * limit blocks for 10 s still asks as often, and must not weigh less than a bystander asking a
   * page every 2 s when the block ends: its asks halve every 2 s. Measured, quiet, 512 addresses
   * at the rate limit's pace: connections held back together were blocked (5,029 of the attackers'
   * answers 429s), 276 attackers came to weigh less than the bystander, and it was among the
   * clients the ceiling refuses (one of its 16 pages refused in another run).
   */
  limited(client: string): void {
    this.opts.ledger.ask(client);
  }

  /** Whether pages of `client` are being refused now (wholly or in part): the heaviest clients' are. */
  isRefusing(client: string): boolean {
    this.tick();
    return this.refusing.has(client);
  }

  stats(): ShedStats {
    this.tick();
    const perSecond = (count: EventCount) => Math.round(count.perSecond() * 10) / 10;
    return {
      shedding: this.fraction > 0 || this.limit < Infinity,
      fraction: Math.round(this.fraction * 1000) / 1000,
      ceiling: this.limit < Infinity ? this.limit : null,
      refusedPerSecond: perSecond(this.refused),
      admittedPerSecond: perSecond(this.admitted),
      standing: [...this.standing],
    };
  }

  /**
   * What `client` uses now, in slots: requests in flight beyond its first, recent scan CPU, recent
   * asks (client-ledger.ts). The first is what any client waiting for its answer holds, and past
   * capacity every answer is slow: counted, a bystander whose one page waited would outweigh
   * attackers refused everything (so holding nothing), and be refused with them.
   */
  private weightOf(client: string): number {
    return Math.max(0, (this.inFlight.get(client) ?? 0) - 1) + this.opts.ledger.slots(client);
  }

  /** Seconds until a weight this far above `line` has decayed to it, within 1 to MAX_RETRY_AFTER_S. */
  private retryAfter(weight: number, line: number): number {
    const seconds = (COST_HALF_LIFE_MS / 1000) * Math.log2(weight / line);
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
  }

  /** Ends the intervals that have passed: each standing one widens the refused fraction, each clear one narrows it. */
  private tick(): void {
    const now = this.now();
    const { targetMs, queues } = this.opts;
    if (now < this.intervalEnd || targetMs <= 0) return;
    for (const [source, queue] of Object.entries(queues) as Array<[DelaySource, WaitSource | null]>) {
      const least = queue?.takeLeastWait() ?? null;
      if (least !== null) this.record(source, least);
    }
    const targetOf = (source: DelaySource) => (source === 'event_loop' ? targetMs * LOOP_TARGET_SHARE : targetMs);
    this.standing = [];
    // How far past its target the worst standing delay is: waits of 4× the target mean that about
    // 3/4 of the load is more than the instance finishes in time (as a gradient limiter scales its
    // limit by target/measured), so that share is refused at once rather than reached by doubling.
    let excess = 0;
    for (const [source, d] of this.detectors) {
      if (d.samples === 0 || d.least <= targetOf(source)) continue;
      this.standing.push(source);
      excess = Math.max(excess, 1 - targetOf(source) / d.least);
    }
    // Never idle all interval, and once as late as the queues' target: ready work waited all
    // interval long, at times as long as a queued page may (no jump by excess: its delay is not
    // known). Never idle alone (saturated) does not widen the fraction, but it lowers the ceiling
    // below: connections wait in the kernel's queue, unaccepted, where no timer sees them
    // (measured, quiet, the control at 128 addresses: the loop never late by more than 65 ms while
    // 300 to 430 connections waited 1.1 to 1.7 s to be accepted, the main thread at 100%).
    const busy = this.loopBusy?.() ?? 0;
    const saturated = busy > 1 - LOOP_IDLE_SHARE;
    const loop = this.detectors.get('event_loop');
    if (saturated && loop !== undefined && loop.most > targetMs && !this.standing.includes('event_loop')) this.standing.push('event_loop');
    this.detectors.clear();
    // Intervals with no sample at all (an idle instance) are clear ones.
    const clearIntervals = Math.floor((now - this.intervalEnd) / SHED_INTERVAL_MS);
    this.intervalEnd += (clearIntervals + 1) * SHED_INTERVAL_MS;
    // The jump by excess waits until a quarter is refused: in an attack's first second its clients
    // have asked little yet, and a ranking then could take a steady bystander for the heaviest.
    if (this.standing.length > 0) this.fraction = Math.min(MAX_FRACTION, Math.max(FIRST_FRACTION, this.fraction * 2, this.fraction >= JUMP_FROM ? excess : 0));
    else this.fraction *= CLEAR_DECAY;
    this.fraction *= CLEAR_DECAY ** clearIntervals;
    if (this.fraction < MIN_FRACTION) this.fraction = 0;
    this.adjustLimit(clearIntervals, saturated, busy);
    // One weighing for both rankings: it reads every client's ledger entry.
    const weighed = this.fraction > 0 || this.limit < Infinity ? this.weighAll() : null;
    ({ refusing: this.refusing, line: this.line } = this.rank(weighed, this.fraction));
    ({ refusing: this.heavy, line: this.heavyLine } = this.rank(weighed, this.limit < Infinity ? MAX_FRACTION : 0));
  }

  /**
   * The ceiling on pages in flight, a concurrency limit as TCP's window or Netflix's limits adapt
   * one: an interval in which the event loop was never idle (`saturated`) halves it, a standing one
   * lowers it a tenth below what was in flight; a clear one in which it refused pages raises it, by
   * the loop's spare time if the loop set it, a little if a queue did; after LOOSE_TO_LIFT clear
   * ones in which it refused none it is lifted. The fraction above refuses a share of the
   * arrivals, and pages already admitted drain only as fast as they end, so it acts a second or two
   * late and swings; the ceiling bounds at once what the instance works on, whatever the fraction is.
   */
  private adjustLimit(idleIntervals: number, saturated: boolean, busy: number): void {
    if (saturated) {
      this.limit = Math.max(MIN_LIMIT_SATURATED, Math.floor(Math.min(this.limit, this.peak) * LIMIT_BACKOFF_SATURATED));
      this.limitByLoop = true;
      this.looseIntervals = 0;
    } else if (this.standing.length > 0) {
      this.limit = Math.max(MIN_LIMIT, Math.floor(Math.min(this.limit, this.peak) * LIMIT_BACKOFF));
      this.limitByLoop = false;
      this.looseIntervals = 0;
    } else if (this.limit < Infinity) {
      if (this.gateRefusals > 0) {
        const growth = this.limitByLoop ? Math.min(LIMIT_GROWTH_MAX, LOOP_BUSY_TARGET / busy) : 1 + LIMIT_GROWTH;
        if (growth > 1) this.limit = Math.max(this.limit + 1, Math.round(this.limit * growth));
        this.looseIntervals = 0;
      } else this.looseIntervals++;
      this.looseIntervals += idleIntervals;
      if (this.looseIntervals >= LOOSE_TO_LIFT) this.limit = Infinity;
    }
    this.gateRefusals = 0;
    this.peak = this.total;
  }

  /** Every client that uses anything, with its weight, heaviest first, and their total. */
  private weighAll(): Weighed {
    const clients: Array<[string, number]> = [];
    let total = 0;
    for (const client of new Set([...this.inFlight.keys(), ...this.opts.ledger.clients()])) {
      const w = this.weightOf(client);
      if (w <= 0) continue;
      clients.push([client, w]);
      total += w;
    }
    clients.sort((a, b) => b[1] - a[1]);
    return { clients, total };
  }

  /** Chooses the clients to refuse: the heaviest, until their weights add up to `fraction` of all, and the least weight among them. */
  private rank(weighed: Weighed | null, fraction: number): { refusing: Map<string, number>; line: number } {
    const refusing = new Map<string, number>();
    let line = Infinity;
    if (weighed === null || fraction === 0) return { refusing, line };
    const { clients, total } = weighed;
    let left = fraction * total;
    for (const [client, w] of clients) {
      // What rounding leaves of the share is no client's part (it would set the line).
      if (left <= total * 1e-9) break;
      refusing.set(client, Math.min(1, left / w));
      line = w;
      left -= w;
    }
    return { refusing, line };
  }
}
