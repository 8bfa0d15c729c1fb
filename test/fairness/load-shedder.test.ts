// Admission past capacity (fairness/load-shedder.ts), on a clock the test drives: no sockets, no
// sleeps. When a queue stands, and whom the instance then refuses.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Overloaded } from '../../src/errors.js';
import { ClientLedger } from '../../src/fairness/client-ledger.js';
import { FairQueue } from '../../src/fairness/fair-queue.js';
import { LoadShedder, SHED_INTERVAL_MS, type DelaySource } from '../../src/fairness/load-shedder.js';

const TARGET = 50;

function world(targetMs = TARGET, random = () => 0.5) {
  const clock = { t: 1_000 };
  const now = () => clock.t;
  const ledger = new ClientLedger(now);
  const fetches = new FairQueue({ maxActive: 2, maxQueued: 100, perClient: 0, perHost: 0, unit: 'fetch', now, costs: ledger });
  /** The share of each interval the event loop was busy (read at its end). */
  const loop = { busy: 0.5 };
  const shedder = new LoadShedder({ ledger, queues: { fetches }, targetMs, now, random, loopBusy: () => loop.busy });
  /** One interval in which every sample of `source` is `delayMs`, ended. */
  const interval = (source: DelaySource, delayMs: number) => {
    for (let i = 0; i < 5; i++) {
      clock.t += SHED_INTERVAL_MS / 5 - 1;
      shedder.observe(source, delayMs);
    }
    clock.t += 5;
    shedder.stats(); // ends the interval
  };
  /** `pages` pages of the client asked and ended lately, each of 1 ms (its recent use). */
  const used = (client: string, pages: number) => {
    ledger.charge(client, pages, pages);
    for (let i = 0; i < pages; i++) ledger.ask(client);
  };
  const refusal = (client: string | null): Overloaded | null => {
    try {
      shedder.admit(client)();
      return null;
    } catch (err) {
      if (err instanceof Overloaded) return err;
      throw err;
    }
  };
  return { clock, ledger, fetches, shedder, interval, used, refusal, loop };
}

const test = suite('load shedder');

test('a burst that waited, with one grant at once in the interval, is no standing queue: nobody is refused', () => {
  const w = world();
  w.used('A', 50);
  w.shedder.observe('fetches', 400);
  w.shedder.observe('fetches', 900);
  w.shedder.observe('fetches', 0);
  w.clock.t += SHED_INTERVAL_MS;
  assert.equal(w.shedder.stats(), { shedding: false, fraction: 0, ceiling: null, refusedPerSecond: 0, admittedPerSecond: 0, standing: [] });
  assert.is(w.refusal('A'), null);
});

test('heaviest first: a standing queue refuses the client using most, and never a client with nothing in flight', () => {
  const w = world(TARGET, () => 0);
  for (let k = 1; k <= 15; k++) w.used(`c${k}`, 2);
  w.used('hog', 100);
  w.interval('fetches', TARGET + 1);
  assert.equal(w.shedder.stats().standing, ['fetches']);
  assert.is(w.shedder.stats().fraction, Math.round(1000 / 16) / 1000);
  assert.ok(w.refusal('hog') instanceof Overloaded, 'the heaviest is refused');
  for (let k = 1; k <= 15; k++) assert.is(w.refusal(`c${k}`), null, 'the lighter ones are not, yet');
  assert.is(w.refusal('bystander'), null, 'a client with nothing in flight and no recent cost');
  assert.is(w.refusal(null), null, "the service's own work");
});

test('the door, before the rate limit counts a request: refuses what admit would, notes the refused ask, and takes nothing in flight for one it lets through', () => {
  const w = world(TARGET, () => 0);
  for (let k = 1; k <= 15; k++) w.used(`c${k}`, 2);
  w.used('hog', 100);
  w.interval('fetches', TARGET + 1);
  const door = (client: string): Overloaded | null => {
    try {
      w.shedder.refuseAtDoor(client);
      return null;
    } catch (err) {
      if (err instanceof Overloaded) return err;
      throw err;
    }
  };
  const hog = w.ledger.slots('hog');
  const before = w.shedder.stats();
  const refused = door('hog');
  assert.ok(refused instanceof Overloaded, 'the heaviest is refused at the door');
  assert.ok(w.ledger.slots('hog') > hog, 'its refused ask weighs, as one admit refused does');
  assert.ok(w.shedder.stats().refusedPerSecond > before.refusedPerSecond, 'and is counted a refusal');
  const light = w.ledger.slots('c1');
  assert.is(door('c1'), null, 'a lighter client goes on');
  assert.is(door('bystander'), null);
  assert.is(w.ledger.slots('c1'), light, 'an ask let through is noted once, where its page is admitted');
  assert.is(w.shedder.stats().admittedPerSecond, before.admittedPerSecond, 'nothing admitted at the door');
  // Pages are admitted or refused as before.
  assert.is(w.refusal('c1'), null);
  assert.ok(w.refusal('hog') instanceof Overloaded);
});

test('a queue at its target is not standing: only past it', () => {
  const w = world();
  w.used('A', 50);
  w.interval('fetches', TARGET);
  assert.is(w.shedder.stats().shedding, false);
  assert.is(w.refusal('A'), null);
});

test('the refused share of the load doubles with each standing interval, and shrinks back with clear ones', () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10); // 16 equal clients: each 1/16 of the load
  // Which clients are refused, without asking for pages (a page asked is a client's use).
  const refused = () => Array.from({ length: 16 }, (_, i) => `c${i + 1}`).filter((c) => w.shedder.isRefusing(c)).length;
  w.interval('fetches', TARGET + 1);
  assert.is(refused(), 1);
  w.interval('fetches', TARGET + 1);
  assert.is(refused(), 2);
  w.interval('fetches', TARGET + 1);
  assert.is(refused(), 4);
  w.interval('fetches', 0); // clear: 1/4 × 0.7 = 2.8 clients' worth → two whole, the third's pages at a chance of 0.8
  assert.is(refused(), 3);
  for (let i = 0; i < 10; i++) w.interval('fetches', 0);
  assert.is(refused(), 0);
  assert.is(w.shedder.stats().shedding, false);
});

test('a client alone is refused that share of its pages, not all of them', () => {
  let n = 0;
  const w = world(TARGET, () => (n++ % 100) / 100);
  w.used('alone', 50);
  w.interval('fetches', TARGET + 1); // 1/16 of the load: the only client's pages at a chance of 1/16
  const refused = Array.from({ length: 100 }, () => w.refusal('alone')).filter((r) => r !== null).length;
  assert.is(refused, 7); // draws 0.00 … 0.06 fall under 0.0625
});

test('a delay far past the target, once a quarter is refused, refuses at once the share by which it is past: waits of 4x the target, 3/4 of the load', () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  w.interval('fetches', 4 * TARGET);
  assert.is(w.shedder.stats().fraction, 0.063, "not in an attack's first interval: its clients have asked little yet");
  w.interval('fetches', 4 * TARGET);
  w.interval('fetches', 4 * TARGET);
  assert.is(w.shedder.stats().fraction, 0.25);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  w.interval('fetches', 4 * TARGET);
  assert.is(w.shedder.stats().fraction, 0.75);
  assert.is(Array.from({ length: 16 }, (_, i) => w.refusal(`c${i + 1}`)).filter((r) => r !== null).length, 12);
});

test('a client refused is told to come back later the more it uses: Retry-After from its weight over the line', () => {
  const w = world(TARGET, () => 0);
  for (let k = 0; k < 4; k++) w.used(`light${k}`, 10);
  w.used('mid', 20);
  w.used('hog', 100);
  w.interval('fetches', 2 * TARGET); // a sixteenth of the load refused: the hog's part of it
  assert.equal(
    ['light0', 'mid', 'hog'].map((c) => w.refusal(c)?.retryAfterSeconds),
    [undefined, undefined, 1],
  );
  w.interval('fetches', 2 * TARGET); // an eighth, then a quarter: still the hog's part
  w.interval('fetches', 2 * TARGET);
  w.interval('fetches', 5 * TARGET); // 4/5: the hog and the mid; the lights only in part
  // A weight halves in 10 s: the mid is 2× a light's weight (10 s above the line), the hog 10× (33 s, told 10 at most).
  assert.equal(
    ['mid', 'hog'].map((c) => w.refusal(c)?.retryAfterSeconds),
    [10, 10],
  );
  assert.is(w.refusal('hog')!.message, 'The service is busy; retry in 10 seconds.');
});

test('the lightest 5% of the load is always admitted: a bystander is not refused for the heaviest', () => {
  const w = world(TARGET, () => 0);
  for (let k = 0; k < 40; k++) w.used(`attacker${k}`, 30);
  w.used('bystander', 5);
  for (let i = 0; i < 8; i++) w.interval('fetches', 100 * TARGET);
  assert.is(w.shedder.stats().fraction, 0.95);
  assert.is(w.refusal('bystander'), null);
  assert.ok(w.refusal('attacker0') instanceof Overloaded);
});

test('requests in flight weigh too: a client holding many is refused before one that asked as many and holds none', () => {
  const w = world(TARGET, () => 0);
  const holds = Array.from({ length: 5 }, () => w.shedder.admit('holder'));
  for (let i = 0; i < 5; i++) w.shedder.admit('other')(); // asked as many, all ended
  w.interval('fetches', 60); // 1 - 50/60: a sixth of the load refused, the holder's part of it
  assert.ok(w.refusal('holder') instanceof Overloaded);
  assert.is(w.refusal('other'), null);
  for (const end of holds) end();
});

test('attackers refused for a while, still asking as often, stay heavier than a bystander asking a page now and then', () => {
  const w = world(TARGET, () => 0);
  const attackers = Array.from({ length: 32 }, (_, k) => `attacker${k}`);
  w.used('bystander', 4);
  for (const a of attackers) w.used(a, 40);
  // A minute past capacity: each attacker asks two pages a second and is refused them all (nothing
  // of theirs is scanned), the bystander asks one every 2 s and is answered (1 ms of scan each).
  for (let s = 0; s < 60; s++) {
    w.interval('fetches', 200);
    w.interval('fetches', 200);
    for (const a of attackers) {
      w.refusal(a);
      w.refusal(a);
    }
    if (s % 2 === 0) w.used('bystander', 1);
  }
  assert.ok(attackers.every((a) => w.ledger.slots(a) > 2 * w.ledger.slots('bystander')));
  assert.is(w.refusal('bystander'), null);
  assert.ok(attackers.filter((a) => w.refusal(a) instanceof Overloaded).length >= 30);
});

/**
 * 32 attackers ask a page every 556 ms and a bystander one every 2 s, for 10 s; then the rate limit
 * blocks the attackers for 10 s while they go on asking (`noted`: the shedder hears of each ask it
 * refused) and the queues stand from its 6th s on. Returns how long the bystander was among the
 * clients refused, and the attackers' and the bystander's weights at the block's end.
 */
function blockedAttack(noted: boolean) {
  const w = world(TARGET, () => 0);
  const attackers = Array.from({ length: 32 }, (_, k) => `attacker${k}`);
  let marked = 0;
  for (let t = 0; t < 20_000; t += 50) {
    w.clock.t += 50;
    const blocked = t >= 10_000;
    w.shedder.observe('fetches', t >= 16_000 ? 300 : 0);
    attackers.forEach((a, k) => {
      if (Math.floor((t + k * 17) / 556) === Math.floor((t + k * 17 - 50) / 556)) return;
      if (!blocked) w.shedder.admit(a)();
      else if (noted) w.shedder.limited(a);
    });
    if (t % 2_000 === 0) w.refusal('bystander');
    if (w.shedder.isRefusing('bystander')) marked++;
  }
  return { marked, attackers: Math.min(...attackers.map((a) => w.ledger.slots(a))), bystander: w.ledger.slots('bystander') };
}

test('attackers the rate limit blocks, still asking as often, stay heavier than a bystander: their refused asks count, or a bystander is refused for them', () => {
  const noted = blockedAttack(true);
  assert.ok(noted.attackers > 2 * noted.bystander, `the lightest attacker ${noted.attackers}, the bystander ${noted.bystander}`);
  assert.is(noted.marked, 0, `the bystander was among the clients refused for ${noted.marked * 50} ms`);
  const unheard = blockedAttack(false);
  assert.ok(unheard.attackers < unheard.bystander / 4, `unheard, the lightest attacker ${unheard.attackers}, the bystander ${unheard.bystander}`);
  assert.ok(unheard.marked > 0, 'unheard, blocked attackers weigh less than the bystander, and it is refused with the heaviest');
});

test("an attack's first second: clients that began asking at the rate limit's pace a moment ago weigh more than a steady bystander with a page in flight", () => {
  const w = world(TARGET, () => 0);
  // A minute of one page every 2 s, each scanned in 3 ms.
  for (let s = 0; s < 60; s += 2) {
    w.clock.t += 2_000;
    w.shedder.admit('bystander')();
    w.ledger.charge('bystander', 3, 1);
  }
  const inFlight = w.shedder.admit('bystander');
  // 128 addresses start asking a page every 556 ms (their pages end at once); the queues stand.
  const attackers = Array.from({ length: 128 }, (_, k) => `attacker${k}`);
  let marked = 0;
  for (let t = 0; t < 3_000; t += 50) {
    w.clock.t += 50;
    w.shedder.observe('fetches', 300);
    attackers.forEach((a, k) => {
      if (Math.floor((t + k * 4) / 556) !== Math.floor((t + k * 4 - 50) / 556)) w.refusal(a);
    });
    if (w.shedder.isRefusing('bystander')) marked++;
  }
  assert.ok(w.shedder.stats().fraction > 0, 'the queues stood: some load is refused');
  assert.ok(
    attackers.some((a) => w.shedder.isRefusing(a)),
    'attackers are refused',
  );
  assert.is(marked, 0, `the bystander was among the clients refused for ${marked * 50} ms`);
  inFlight();
});

test('a client first seen during an attack, asking a page every 2 s or three at once, is not refused: its few asks are read as a short history, not as a burst', () => {
  for (const burst of [1, 3]) {
    const w = world(TARGET, () => 0);
    const attackers = Array.from({ length: 128 }, (_, k) => `attacker${k}`);
    let held: Array<{ until: number; end: () => void }> = [];
    const ask = (client: string, t: number, forMs: number) => {
      try {
        held.push({ until: t + forMs, end: w.shedder.admit(client) });
        return true;
      } catch {
        return false;
      }
    };
    let asked = 0;
    let refused = 0;
    // 20 s of 128 addresses asking a page every 556 ms, each in flight 300 ms; the queues stand.
    // The newcomer asks from 10 s on, its pages in flight 400 ms.
    for (let t = 0; t < 20_000; t += 50) {
      w.clock.t += 50;
      w.shedder.observe('fetches', 300);
      for (const page of held) if (page.until <= t) page.end();
      held = held.filter((page) => page.until > t);
      attackers.forEach((a, k) => {
        if (Math.floor((t + k * 4) / 556) !== Math.floor((t + k * 4 - 50) / 556)) ask(a, t, 300);
      });
      if (t >= 10_000 && t % 2_000 === 0) {
        for (let b = 0; b < burst; b++, asked++) if (!ask('newcomer', t, 400)) refused++;
      }
    }
    assert.ok(attackers.filter((a) => w.shedder.isRefusing(a)).length >= 120, 'the attackers are refused');
    assert.equal([asked, refused], [5 * burst, 0], `bursts of ${burst}`);
  }
});

test('an event loop late all interval long stands; one late tick among prompt ones does not', () => {
  const w = world();
  w.used('A', 50);
  w.interval('event_loop', TARGET / 5 + 1);
  assert.equal(w.shedder.stats().standing, ['event_loop']);
  const v = world();
  v.used('A', 50);
  for (const late of [200, 0, 3, 1, 0]) {
    v.clock.t += SHED_INTERVAL_MS / 5 - 1;
    v.shedder.observe('event_loop', late);
  }
  v.clock.t += 5;
  assert.is(v.shedder.stats().shedding, false);
});

test("an event loop never idle all interval, once as late as the target, stands though its timers mostly ran on time: connections wait in the kernel's queue, where no timer sees them", () => {
  /** One interval of ticks on time but one, `lateMs` late, with the loop busy `busy` of it. */
  const busyInterval = (busy: number, lateMs: number) => {
    const w = world();
    w.used('A', 50);
    w.loop.busy = busy;
    for (const late of [0, lateMs, 0, 1, 0]) {
      w.clock.t += SHED_INTERVAL_MS / 5 - 1;
      w.shedder.observe('event_loop', late);
    }
    w.clock.t += 5;
    return w.shedder.stats();
  };
  const stood = busyInterval(0.96, TARGET + 1); // idle 20 ms of 500
  assert.equal([stood.standing, stood.fraction], [['event_loop'], 0.063]);
  const clear = { shedding: false, fraction: 0, ceiling: null, refusedPerSecond: 0, admittedPerSecond: 0, standing: [] };
  assert.equal(busyInterval(0.94, TARGET + 1), clear, 'idle 30 ms of 500: it caught up');
});

test('an event loop never idle all interval, its timers on time, refuses no share of the load but sets a ceiling on pages in flight: connections wait unaccepted while the main thread has no time to spare', () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  const held = Array.from({ length: 30 }, (_, i) => w.shedder.admit(`c${(i % 16) + 1}`));
  w.loop.busy = 1;
  w.interval('event_loop', 1);
  assert.equal(w.shedder.stats(), { shedding: true, fraction: 0, ceiling: 15, refusedPerSecond: 0, admittedPerSecond: 3, standing: [] });
  assert.ok(w.refusal('c9') instanceof Overloaded, '30 in flight, past the ceiling of 15');
  w.interval('event_loop', 1);
  assert.is(w.shedder.stats().ceiling, 7, 'still never idle: halved again');
  w.loop.busy = 0.9;
  w.interval('event_loop', 1);
  assert.is(w.shedder.stats().ceiling, 7, 'idle a tenth of the interval, and nothing refused: unchanged');
  for (const end of held) end();
});

test("an event loop never idle halves the ceiling, below 8, down to 2 pages in flight: the main thread is what is short, and the kernel's queue of connections is where they wait; a standing queue alone takes it back to 8", () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  w.used('hog', 100);
  const held = Array.from({ length: 10 }, (_, i) => w.shedder.admit(`c${(i % 16) + 1}`));
  w.loop.busy = 1;
  const ceilings: Array<number | null> = [];
  for (let i = 0; i < 3; i++) {
    w.interval('event_loop', 1);
    ceilings.push(w.shedder.stats().ceiling);
  }
  assert.equal(ceilings, [5, 2, 2], 'halved each interval, to 2 and no lower');
  assert.ok(w.refusal('hog') instanceof Overloaded, '10 in flight, past the ceiling of 2');
  assert.is(w.refusal('bystander'), null, 'a client with nothing in flight and no recent cost is admitted past it');
  w.interval('event_loop', 1);
  assert.is(w.shedder.stats().ceiling, 2, 'never below 2');
  w.loop.busy = 0.5;
  w.interval('fetches', TARGET + 1);
  assert.is(w.shedder.stats().ceiling, 8, 'a queue standing, the loop with time to spare: back to 8');
  for (const end of held) end();
});

test("a ceiling the saturated event loop set grows back by the loop's spare time: twice as high with the loop busy 40% of the interval, a quarter higher at 68%, not at all past 85%; one a standing queue set grows by 5%", () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  const held = Array.from({ length: 20 }, (_, i) => w.shedder.admit(`c${(i % 16) + 1}`));
  w.loop.busy = 1;
  w.interval('event_loop', 1);
  assert.is(w.shedder.stats().ceiling, 10, 'half the 20 in flight');
  const grown = (busy: number, client = 'c1') => {
    assert.ok(w.refusal(client) instanceof Overloaded, 'as many in flight as the ceiling');
    w.loop.busy = busy;
    w.interval('event_loop', 1);
    return w.shedder.stats().ceiling;
  };
  assert.is(grown(0.4), 20, 'busy 40%: at most doubled');
  assert.is(grown(0.68), 25, 'busy 68%: by 0.85 / 0.68');
  for (let i = 0; i < 5; i++) held.push(w.shedder.admit(`c${(i % 16) + 1}`)); // 25 in flight
  assert.is(grown(0.9), 25, 'busier than 85%: unchanged');
  w.loop.busy = 0.5;
  w.interval('fetches', TARGET + 1);
  assert.is(w.shedder.stats().ceiling, 22, 'a standing queue: a tenth below the 25 in flight');
  assert.is(grown(0.4, 'c9'), 23, 'set by a queue: up by 5% (one at least), whatever the loop (c9, outside the sixteenth of the load the fraction refuses)');
  for (const end of held) end();
});

test('past capacity, a bystander whose pages are slow enough that two are in flight as it asks is still lighter than attackers refused everything', () => {
  const w = world(TARGET, () => 0);
  const attackers = Array.from({ length: 32 }, (_, k) => `attacker${k}`);
  // A minute past capacity, the queues standing every other interval (so that between two thirds
  // and 95% of the load is refused): each attacker asks a page every 556 ms and is refused it
  // (holding nothing), the bystander asks one every 2 s and is answered, each page in flight 5 s.
  let held: Array<{ until: number; end: () => void }> = [];
  let refused = 0;
  let mostHeld = 0;
  for (let t = 0; t < 60_000; t += 50) {
    w.clock.t += 50;
    w.shedder.observe('fetches', Math.floor((t + 50) / SHED_INTERVAL_MS) % 2 === 0 ? 10 * TARGET : 0); // the clock is 1,050 + t
    for (const page of held) if (page.until <= t) page.end();
    held = held.filter((page) => page.until > t);
    attackers.forEach((a, k) => {
      if (Math.floor((t + k * 17) / 556) !== Math.floor((t + k * 17 - 50) / 556)) w.refusal(a);
    });
    if (t % 2_000 === 0) {
      try {
        held.push({ until: t + 5_000, end: w.shedder.admit('bystander') });
        mostHeld = Math.max(mostHeld, held.length);
      } catch {
        refused++;
      }
    }
  }
  assert.ok(w.shedder.stats().fraction >= 0.5, `a fraction of ${w.shedder.stats().fraction} refused`);
  assert.is(mostHeld, 3, 'as each page is asked, the two before are still in flight');
  assert.is(refused, 0, `the bystander was refused ${refused} of 30 pages`);
  assert.ok(attackers.filter((a) => w.shedder.isRefusing(a)).length >= 20, 'the attackers are refused');
  for (const page of held) page.end();
});

test('past capacity, a ceiling on pages in flight: once a queue stood, a heavy client is refused while as many pages as the ceiling are in flight, whatever the refused fraction, and admitted as soon as fewer are', () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  const held = Array.from({ length: 20 }, (_, i) => w.shedder.admit(`c${(i % 16) + 1}`));
  w.interval('fetches', TARGET + 1); // 20 were in flight as it stood: a ceiling of 18
  for (let i = 0; i < 4; i++) w.interval('fetches', 0); // the fraction decays to nothing (1/16 × 0.7⁴ < 1/64); the ceiling stays
  const stats = w.shedder.stats();
  assert.equal([stats.fraction, stats.shedding], [0, true]);
  const gate = w.refusal('c3');
  assert.ok(gate instanceof Overloaded, '20 in flight, at least the ceiling');
  assert.is(gate.reason, 'the instance has as many pages in flight as it finishes in time and refuses the clients using most first');
  assert.is(w.refusal('bystander'), null, 'a client with nothing in flight and no recent cost is admitted past the ceiling');
  for (const end of held.splice(0, 3)) end(); // 17 in flight
  assert.is(w.refusal('c3'), null);
  for (const end of held) end();
});

test('the ceiling adapts: below what was in flight after each standing interval, never below 8; up by 5% after a clear one in which it refused; lifted after 3 s in which it refused nothing', () => {
  const w = world(TARGET, () => 0.5);
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, 10);
  const held = Array.from({ length: 40 }, (_, i) => w.shedder.admit(`c${(i % 16) + 1}`)); // c1-c8 hold three, c9-c16 two
  const ceilings: Array<number | null> = [];
  for (let i = 0; i < 3; i++) {
    w.interval('fetches', TARGET + 1);
    ceilings.push(w.shedder.stats().ceiling);
  }
  assert.equal(ceilings, [36, 32, 28], 'a tenth below the 40 in flight, then below itself');
  assert.ok(w.refusal('c9') instanceof Overloaded, 'c9, outside the quarter refused, is refused by the ceiling');
  w.interval('fetches', 0);
  assert.is(w.shedder.stats().ceiling, 29, 'clear, and it refused a page: one more');
  w.interval('fetches', 0);
  assert.is(w.shedder.stats().ceiling, 29, 'clear, and nothing refused: unchanged');
  for (let i = 0; i < 30; i++) w.interval('fetches', TARGET + 1);
  assert.is(w.shedder.stats().ceiling, 8, 'never below 8');
  for (const end of held) end();
  for (let i = 0; i < 5; i++) w.interval('fetches', 0);
  assert.is(w.shedder.stats().ceiling, 8, 'clear for 2.5 s: the ceiling stays');
  w.interval('fetches', 0);
  assert.is(w.shedder.stats().ceiling, null, 'clear for 3 s with nothing refused: lifted (the fraction decays on its own)');
});

test('a queue that grants nothing while a waiter ages stands, read from the queue at the interval end', async () => {
  const w = world(TARGET, () => 0);
  w.used('A', 50);
  const signal = new AbortController().signal;
  const held = [await w.fetches.acquire(signal, { client: 'A', host: '' }), await w.fetches.acquire(signal, { client: 'B', host: '' })];
  void w.fetches.acquire(signal, { client: 'C', host: '' }); // waits: both slots held
  w.fetches.takeLeastWait(); // forget the two grants at once
  w.clock.t += SHED_INTERVAL_MS + 1;
  assert.equal(w.shedder.stats().standing, ['fetches']);
  assert.ok(w.refusal('A') instanceof Overloaded);
  for (const release of held) release();
});

test("a heavy client's waiters aging while a light client is served at once stand: the oldest waiter's age, not the grant's wait, is the delay", async () => {
  const w = world(TARGET, () => 0);
  const signal = new AbortController().signal;
  const ask = (client: string) => w.fetches.acquire(signal, { client, host: '' });
  const a = [await ask('A'), await ask('A')]; // both slots
  const queued = [ask('A'), ask('A'), ask('A')];
  w.fetches.takeLeastWait(); // forget the two grants at once
  w.clock.t += 395;
  const b = ask('B');
  w.clock.t += 5;
  a[0]!(); // B, holding nothing, goes first: it waited 5 ms, A's oldest 400 ms
  (await b)();
  w.clock.t += SHED_INTERVAL_MS;
  assert.equal(w.shedder.stats().standing, ['fetches']);
  a[1]!();
  for (const next of queued) (await next)();
});

test('SHED_TARGET_MS 0: nothing is ever refused', () => {
  const w = world(0);
  w.used('A', 50);
  w.interval('fetches', 10_000);
  assert.is(w.shedder.stats().shedding, false);
  assert.is(w.refusal('A'), null);
});

test('refusals and admissions per second over the last 10 s', () => {
  const w = world();
  for (let k = 1; k <= 16; k++) w.used(`c${k}`, k * 10);
  w.interval('fetches', 200);
  for (let i = 0; i < 20; i++) w.refusal('c16');
  for (let i = 0; i < 30; i++) w.refusal('c1');
  const stats = w.shedder.stats();
  assert.equal([stats.refusedPerSecond, stats.admittedPerSecond], [2, 3]);
  w.clock.t += 10_001;
  assert.equal([w.shedder.stats().refusedPerSecond, w.shedder.stats().admittedPerSecond], [0, 0]);
});

test.run();
