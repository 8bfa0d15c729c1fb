// The order in which the fair scheduler grants slots, on a clock the test drives: no sockets, no
// sleeps. Each attack gets its own test, named after it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Overloaded } from '../../src/errors.js';
import { FairQueue, type FairQueueOptions, type Release } from '../../src/fairness/fair-queue.js';

/** Lets granted promises settle (grants resolve promises; no time passes). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function world(opts: Partial<FairQueueOptions> = {}) {
  const clock = { t: 0 };
  const scheduler = new FairQueue({ maxActive: 64, maxQueued: 256, perClient: 8, perHost: 16, unit: 'fetch', ...opts, now: () => clock.t });
  const granted: string[] = [];
  const refused: Array<[string, string]> = [];
  const releases = new Map<string, Release>();
  const ask = (label: string, client: string | null, host = 'site.test', signal = new AbortController().signal) => {
    scheduler.acquire(signal, { client, host }).then(
      (release) => {
        granted.push(label);
        releases.set(label, release);
      },
      (err: Overloaded) => refused.push([label, err.reason]),
    );
  };
  const release = (label: string) => releases.get(label)!();
  return { clock, scheduler, granted, refused, ask, release };
}

const test = suite('fair scheduler');

test('a freed slot goes to the client holding least, then to the one served longest ago', async () => {
  const w = world({ maxActive: 8, perClient: 0 });
  for (let i = 1; i <= 10; i++) w.ask(`a${i}`, 'A'); // alone: A takes all 8
  for (let i = 1; i <= 3; i++) w.ask(`b${i}`, 'B');
  for (let i = 1; i <= 3; i++) w.ask(`c${i}`, 'C');
  await settle();
  assert.is(w.granted.length, 8);
  for (let i = 1; i <= 4; i++) w.release(`a${i}`);
  await settle();
  // B and C hold none: B (first to wait) then C; both hold one: B, served longer ago; then C.
  assert.equal(w.granted.slice(8), ['b1', 'c1', 'b2', 'c2']);
});

test('past capacity, waiters that stood past the wait bound are refused at the next grant, only those of the clients named heaviest', async () => {
  const w = world({ maxActive: 1, perClient: 0, unit: 'scan', maxWaitMs: 1000, refusesStale: (client) => client === 'A' });
  w.ask('a1', 'A'); // runs
  for (let i = 2; i <= 5; i++) w.ask(`a${i}`, 'A');
  w.ask('y1', 'Y');
  w.clock.t = 600;
  w.ask('z1', 'Z');
  await settle();
  w.clock.t = 900;
  w.release('a1'); // nobody has waited 1 s: Y, holding nothing and waiting longest, goes first
  await settle();
  assert.equal([w.granted, w.refused], [['a1', 'y1'], []]);
  w.clock.t = 1700;
  w.release('y1'); // A's four have waited 1.7 s: refused; Z has waited 1.1 s, but A is the one named
  await settle();
  assert.equal(w.granted, ['a1', 'y1', 'z1']);
  assert.equal(
    w.refused,
    ['a2', 'a3', 'a4', 'a5'].map((label) => [label, 'waited 1 s for a scan slot']),
  );
});

test('without a wait bound, a waiter waits as long as it takes', async () => {
  const w = world({ maxActive: 1, perClient: 0 });
  w.ask('a1', 'A');
  w.ask('a2', 'A');
  await settle();
  w.clock.t = 60_000;
  w.release('a1');
  await settle();
  assert.equal([w.granted, w.refused], [['a1', 'a2'], []]);
});

test('a client with nothing in flight goes first, ahead of clients that arrived before it', async () => {
  const w = world({ maxActive: 2, perClient: 0 });
  w.ask('a1', 'A');
  w.ask('a2', 'A');
  for (let i = 3; i <= 6; i++) w.ask(`a${i}`, 'A');
  w.ask('z1', 'Z');
  await settle();
  w.release('a1');
  await settle();
  assert.equal(w.granted, ['a1', 'a2', 'z1']);
});

test('shares shrink as clients join: max(1, floor(slots / (clients + 1))), within the per-client bound', async () => {
  const w = world({ maxActive: 12, perClient: 0, maxQueued: 100 });
  for (let i = 0; i < 20; i++) w.ask(`a${i}`, 'A');
  await settle();
  assert.is(w.scheduler.heldBy('A'), 12, 'a lone client may use every slot');
  for (let i = 0; i < 10; i++) w.ask(`b${i}`, 'B');
  for (let i = 0; i < 10; i++) w.ask(`c${i}`, 'C');
  // Three compete now: each share is floor(12 / 4) = 3. A's slots free one by one.
  for (let i = 0; i < 9; i++) w.release(`a${i}`);
  await settle();
  assert.equal([w.scheduler.heldBy('A'), w.scheduler.heldBy('B'), w.scheduler.heldBy('C')], [3, 3, 3]);
  assert.is(w.scheduler.inFlight, 9, 'the fourth share stays free for a client not yet come');
  for (let i = 1; i <= 3; i++) w.ask(`d${i}`, 'D');
  await settle();
  assert.ok(w.granted.includes('d1'), 'the newcomer is served at once');
  assert.ok(w.granted.includes('d2') && !w.granted.includes('d3'), 'four compete: floor(12 / 5) = 2 for the newcomer');
});

test('8 clients with dripping pages cannot take every slot from a ninth', async () => {
  const w = world(); // 64 slots, 8 per client at most
  for (let c = 1; c <= 8; c++) for (let i = 0; i < 30; i++) w.ask(`x${c}.${i}`, `attacker${c}`, `drip${c}-${i}.test`);
  await settle();
  const held = Array.from({ length: 8 }, (_, c) => w.scheduler.heldBy(`attacker${c + 1}`));
  assert.ok(
    held.every((n) => n <= 8),
    JSON.stringify(held),
  );
  assert.ok(w.scheduler.inFlight < 64, `${w.scheduler.inFlight} slots taken`);
  w.ask('bystander', 'B', 'fine.test');
  await settle();
  assert.ok(w.granted.includes('bystander'));
  assert.is(w.refused.length, 0, 'each attacker waits in its own queue (30 < 4 × 8)');
});

test('128 clients with dripping pages: the share shrinks to one slot each, and a freed slot goes to a client holding none', async () => {
  const w = world({ maxQueued: 1000 });
  for (let c = 1; c <= 128; c++) for (let i = 0; i < 3; i++) w.ask(`x${c}.${i}`, `attacker${c}`, `drip${c}-${i}.test`);
  await settle();
  assert.is(w.scheduler.inFlight, 64);
  const counts = Array.from({ length: 128 }, (_, c) => w.scheduler.heldBy(`attacker${c + 1}`));
  const over = counts.filter((n) => n > 1).length;
  // The first comers took more before the others came; every later grant goes to a client holding none.
  for (const label of w.granted.slice()) w.release(label);
  await settle();
  const after = Array.from({ length: 128 }, (_, c) => w.scheduler.heldBy(`attacker${c + 1}`));
  assert.ok(
    after.every((n) => n <= 1),
    `at most one each once all compete (before: ${over} held more)`,
  );
});

test('an attacker with many registrable domains cannot hold more than its share', async () => {
  const w = world({ perClient: 0 });
  w.ask('b1', 'B', 'fine.test');
  w.ask('c1', 'C', 'fine.test');
  w.ask('d1', 'D', 'fine.test');
  for (let i = 0; i < 60; i++) w.ask(`x${i}`, 'attacker', `random${i}.test`);
  await settle();
  assert.is(w.scheduler.heldBy('attacker'), 12, 'floor(64 / (4 clients + 1)): 60 destinations change nothing');
  assert.is(w.scheduler.capped, 48);
});

test('an attacker filling the instance queue is refused its own excess; a bystander holding nothing gets a place', async () => {
  const w = world({ maxActive: 4, maxQueued: 6, perClient: 0 });
  for (let i = 0; i < 12; i++) w.ask(`x${i}`, 'attacker', `d${i}.test`);
  await settle();
  assert.equal([w.scheduler.inFlight, w.scheduler.queued + w.scheduler.capped], [4, 6]);
  assert.equal(
    w.refused.map(([label]) => label),
    ['x10', 'x11'],
    'nobody lighter was queued: the attacker itself is refused',
  );
  w.ask('z1', 'Z');
  await settle();
  assert.equal(w.refused.at(-1), ['x9', 'a client using less needed the fetch queue']);
  w.release('x0');
  await settle();
  assert.is(w.granted.at(-1), 'z1', 'and is served first');
});

test('a client past its own queue (4 × its bound) is refused; another client is not', async () => {
  const w = world({ maxActive: 2, perClient: 1 });
  for (let i = 0; i < 6; i++) w.ask(`a${i}`, 'A');
  w.ask('b1', 'B');
  await settle();
  assert.equal(w.refused, [['a5', 'the client has its full share of fetches in flight and queued']]);
  assert.ok(w.granted.includes('b1'));
});

test("the service's own work (no client) is held by no per-client bound", async () => {
  const w = world({ perClient: 1 });
  for (let i = 0; i < 5; i++) w.ask(`s${i}`, null);
  await settle();
  assert.is(w.scheduler.heldBy(null), 5);
});

test('CPU charged to a client lowers its priority', async () => {
  const w = world({ maxActive: 2, perClient: 0 });
  w.ask('f1', 'F');
  w.ask('f2', 'F');
  w.ask('a1', 'A');
  w.ask('b1', 'B');
  await settle();
  w.scheduler.chargeCpu('A', 100); // two slots' worth (50 ms each)
  w.release('f1'); // A and B hold none; A waited longer, but costs two slots
  await settle();
  assert.equal(w.granted.slice(2), ['b1']);
  w.release('f2');
  await settle();
  assert.equal(w.granted.slice(3), ['a1']);
});

test('CPU charged to a client shrinks its share, until it decays', async () => {
  const w = world({ maxActive: 16, perClient: 8 });
  for (let i = 0; i < 10; i++) w.ask(`a${i}`, 'A');
  await settle();
  assert.is(w.scheduler.heldBy('A'), 8);
  w.scheduler.chargeCpu('A', 200); // four slots' worth: A may hold 3 more, not 7
  for (let i = 0; i < 5; i++) w.release(`a${i}`);
  await settle();
  assert.equal([w.scheduler.heldBy('A'), w.scheduler.capped], [4, 1], 'held back with 12 slots free');
  w.clock.t += 60_000; // six half-lives: 200 ms decays to about 3 ms
  w.release('a5');
  await settle();
  assert.equal([w.scheduler.heldBy('A'), w.scheduler.capped], [4, 0]);
});

test('costs halve every 10 s and stay bounded in clients remembered', () => {
  const w = world();
  w.scheduler.chargeCpu('A', 400);
  w.clock.t += 10_000;
  assert.is(Math.round(w.scheduler.costs.decayed('A')), 200);
  for (let i = 0; i < 12_000; i++) w.scheduler.chargeCpu(`c${i}`, 10);
  assert.ok(w.scheduler.costs.size <= 10_000);
});

test("recentWait: acquire-to-grant of fair grants over 30 s; waits on a client's own excess are not counted", async () => {
  const w = world({ maxActive: 2, perClient: 1 });
  w.ask('a1', 'A'); // at once: 0
  w.ask('c1', 'C'); // at once: 0
  w.ask('a2', 'A'); // over A's share: not counted
  w.ask('b1', 'B'); // within B's share, waits for a slot
  await settle();
  assert.is(w.scheduler.waitingClients, 2);
  w.clock.t = 120;
  w.release('c1');
  await settle();
  assert.equal(w.granted, ['a1', 'c1', 'b1']);
  w.clock.t = 300;
  w.release('a1');
  await settle();
  assert.equal(w.granted.at(-1), 'a2');
  assert.equal(w.scheduler.recentWait(), { p50: 0, p90: 120, max: 120, count: 3 });
  w.clock.t = 40_000;
  assert.equal(w.scheduler.recentWait(), { p50: 0, p90: 0, max: 0, count: 0 });
});

test('an aborted waiter leaves its queue, and its client stops competing', async () => {
  const w = world({ maxActive: 1 });
  w.ask('a1', 'A');
  const gone = new AbortController();
  w.ask('b1', 'B', 'site.test', gone.signal);
  await settle();
  gone.abort(new Error('client gone'));
  await settle();
  assert.equal([w.scheduler.waitingClients, w.scheduler.capped + w.scheduler.queued], [0, 0]);
});

test.run();
