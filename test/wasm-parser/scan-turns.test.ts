// The order in which waiting scans go on, one per turn, on a schedule the test runs by hand: who
// goes next, the bound on scans taking turns at once, and scans of a costly client waiting behind
// a cheap one's whole scan.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scanHead, ScanTurns } from '../../wasm-parser/index.js';
import type { ScanTicket } from '../../wasm-parser/scan-turns.js';
import { utf8 } from './cuts.js';

/** Turns run by hand: `turn()` runs the one scheduled callback and lets the resumed scan note itself. */
function handTurns(costs: Record<string, number>, maxActive = Infinity, lightCost = 0) {
  const scheduled: (() => void)[] = [];
  /** Which of the two a turn was scheduled with, in order. */
  const kinds: ('at once' | 'after a pause')[] = [];
  const turns = new ScanTurns({
    maxActive,
    lightCost,
    cost: (client) => costs[client] ?? 0,
    schedule: (run) => (kinds.push('at once'), scheduled.push(run)),
    pause: (run) => (kinds.push('after a pause'), scheduled.push(run)),
  });
  const order: string[] = [];
  const wait = (ticket: ScanTicket, name: string) => void turns.turn(ticket).then(() => order.push(name));
  const turn = async () => {
    const run = scheduled.shift();
    assert.ok(run !== undefined, 'a turn is scheduled');
    assert.is(scheduled.length, 0, 'one turn scheduled at a time');
    run();
    await Promise.resolve();
  };
  return { turns, order, wait, turn, scheduled, kinds };
}

test('the scan of the cheapest client goes first, whoever waited longer', async () => {
  const { turns, order, wait, turn } = handTurns({ heavy1: 900, heavy2: 800, bystander: 3 });
  wait(turns.ticket('heavy1'), 'heavy1');
  wait(turns.ticket('heavy2'), 'heavy2');
  wait(turns.ticket('bystander'), 'bystander');
  await turn();
  await turn();
  await turn();
  assert.equal(order, ['bystander', 'heavy2', 'heavy1']);
  assert.is(turns.waiting, 0);
});

test('among clients of equal cost, the one served longest ago; within a client, its oldest scan', async () => {
  const { turns, order, wait, turn } = handTurns({});
  const a1 = turns.ticket('a');
  const a2 = turns.ticket('a');
  const b1 = turns.ticket('b');
  wait(a2, 'a2');
  wait(b1, 'b1');
  wait(a1, 'a1'); // the older scan of `a` came back last, and still goes before a2
  await turn();
  await turn();
  wait(a1, 'a1 again');
  await turn();
  await turn();
  assert.equal(order, ['a1', 'b1', 'a1 again', 'a2']);
});

test('past the bound a new scan waits until an active one ends, while the active take their turns', async () => {
  const { turns, order, wait, turn, scheduled } = handTurns({ a: 100, b: 100, c: 100 }, 2);
  const a = turns.ticket('a');
  const b = turns.ticket('b');
  const c = turns.ticket('c');
  wait(a, 'a');
  wait(b, 'b');
  wait(c, 'c');
  await turn();
  await turn();
  assert.equal(order, ['a', 'b']);
  assert.is(turns.active, 2);
  await turn();
  assert.equal(order, ['a', 'b'], 'the bound holds c back');
  assert.is(scheduled.length, 0, 'and no turn is scheduled until an active scan ends or waits');
  wait(b, 'b again');
  await turn();
  assert.equal(order, ['a', 'b', 'b again'], 'c still waits');
  turns.end(a);
  turns.end(a); // ending twice frees one place
  await turn();
  assert.equal(order, ['a', 'b', 'b again', 'c']);
  assert.is(turns.active, 2);
});

test('a client far cheaper than every active one is not held back by the bound', async () => {
  const { turns, order, wait, turn } = handTurns({ heavy: 100, alsoHeavy: 60, bystander: 50 }, 1);
  wait(turns.ticket('heavy'), 'heavy');
  await turn();
  wait(turns.ticket('alsoHeavy'), 'alsoHeavy');
  wait(turns.ticket('bystander'), 'bystander');
  await turn();
  assert.equal(order, ['heavy', 'bystander'], 'half the least active cost goes past the bound; more waits');
  assert.is(turns.waiting, 1);
});

test('a light client goes past the bound even when a newcomer among the active costs less', async () => {
  const { turns, order, wait, turn } = handTurns({ newcomer: 5, bystander: 40, heavy: 900 }, 1, 100);
  wait(turns.ticket('newcomer'), 'newcomer');
  await turn();
  assert.is(turns.first(turns.ticket('bystander')), null, 'within the light cost: at once');
  assert.ok(turns.first(turns.ticket('heavy')) !== null, 'the heavy client waits');
  wait(turns.ticket('bystander'), 'bystander');
  await turn();
  assert.equal(order, ['newcomer', 'bystander']);
});

test("past the bound, a costly client's active scan goes before its new ones", async () => {
  const { turns, order, wait, turn } = handTurns({ a: 100 }, 1);
  const first = turns.ticket('a');
  const second = turns.ticket('a');
  wait(second, 'second');
  await turn();
  wait(first, 'first');
  await turn();
  assert.equal(order, ['second'], 'first is new and the bound is reached');
  turns.end(second);
  await turn();
  assert.equal(order, ['second', 'first']);
});

test("while the bound is reached, a costly client's new scan waits before its first piece; a cheap one does not", async () => {
  const { turns, order, wait, turn } = handTurns({ heavy: 100, alsoHeavy: 100, bystander: 10 }, 1);
  const heavy = turns.ticket('heavy');
  assert.is(turns.first(heavy), null, 'below the bound the first piece runs at once');
  wait(heavy, 'heavy');
  await turn();
  const bystander = turns.ticket('bystander');
  assert.is(turns.first(bystander), null, 'far cheaper than the active scan: at once');
  const late = turns.ticket('alsoHeavy');
  const waited = turns.first(late);
  assert.ok(waited !== null, 'at the bound a costly client waits');
  assert.is(turns.first(late), null, 'asked once per scan');
  void waited.then(() => order.push('alsoHeavy'));
  turns.end(heavy);
  await turn();
  assert.equal(order, ['heavy', 'alsoHeavy']);
});

test('a scan held back by the bound leaves at its deadline, failing with its reason; the others go on', async () => {
  const { turns, order, wait, turn } = handTurns({ heavy: 100, late: 100, later: 100 }, 1);
  const heavy = turns.ticket('heavy');
  wait(heavy, 'heavy');
  await turn();
  const deadline = new AbortController();
  const outcome = (p: Promise<void>) =>
    p.then(
      () => 'went on',
      (err: Error) => err.message,
    );
  const late = outcome(turns.turn(turns.ticket('late'), deadline.signal));
  wait(turns.ticket('later'), 'later');
  assert.is(turns.waiting, 2);
  deadline.abort(new Error('request deadline'));
  assert.is(await late, 'request deadline');
  assert.is(turns.waiting, 1);
  turns.end(heavy);
  await turn();
  assert.equal(order, ['heavy', 'later']);
  assert.is(await outcome(turns.turn(turns.ticket('late'), deadline.signal)), 'request deadline', 'an aborted signal never joins');
});

test("heavy heads: a bystander's scan that started later ends first, its turns taken before the attacker's", async () => {
  const turns = new ScanTurns({ maxActive: 4, cost: (client) => (client === 'attacker' ? 5000 : 2) });
  // Every reading of this clock moves it on by a slice: every piece ends a slice and waits for a turn.
  let now = 0;
  const clock = () => (now += 1);
  const head = utf8(`<html><head><title>t</title>${'<i>'.repeat(50_000)}</head><body>`);
  const ended: string[] = [];
  const scan = (client: string) => scanHead(head, { turns, client, clock, cpuClock: clock }).then((r) => ended.push(`${client} ${r.tags.title}`));
  await Promise.all([scan('attacker'), scan('bystander')]);
  assert.equal(ended, ['bystander t', 'attacker t']);
  assert.is(turns.active, 0, 'both scans freed their places');
  assert.is(turns.waiting, 0);
});

test('heavy heads: while scans are crowded and only costly clients wait, their turns come after a pause; with a light client waiting, at once', async () => {
  const { turns, order, wait, turn, kinds } = handTurns({ heavy: 500, alsoHeavy: 400, bystander: 1 }, 1, 100);
  const heavy = turns.ticket('heavy');
  wait(heavy, 'heavy');
  assert.equal(kinds, ['at once'], 'not crowded: at once');
  await turn(); // heavy is active: the bound is reached
  wait(turns.ticket('bystander'), 'bystander');
  assert.is(turns.crowded, true);
  assert.equal(kinds.at(-1), 'at once', 'a light client waits');
  await turn();
  wait(turns.ticket('alsoHeavy'), 'alsoHeavy');
  wait(heavy, 'heavy again');
  assert.equal(kinds.at(-1), 'after a pause', 'only costly clients wait');
  wait(turns.ticket('bystander'), 'bystander again');
  await turn();
  assert.equal(order, ['heavy', 'bystander', 'bystander again'], 'a light client that came during the pause goes at its end, first');
});

test.run();
