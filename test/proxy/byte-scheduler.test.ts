// The byte scheduler's policy on a controlled clock: streams are loops that ask for a chunk's turn
// as soon as their last one was granted (a client reading as fast as it can), and time moves only
// when the test says so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ByteScheduler, type SchedulerClock } from '../../src/proxy/byte-scheduler.js';

const KB = 1024;
const MB = 1024 * KB;
const CHUNK = 64 * KB;

/**
 * A clock whose time moves only in advance(); its timers fire in order of their due time, `lag.ms`
 * late (an event loop short of time).
 */
function controlledClock() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const lag = { ms: 0 };
  const clock: SchedulerClock = {
    now: () => now,
    after(ms, fn) {
      const timer = { at: now + ms + lag.ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
  };
  return {
    clock,
    lag,
    /** Moves time on by `ms` in 1 ms steps, letting the streams ask again after each grant. */
    async advance(ms: number) {
      for (const end = now + ms; now < end;) {
        now = Math.min(end, now + 1);
        for (const timer of timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)) {
          timers = timers.filter((t) => t !== timer);
          timer.fn();
        }
        await settle();
      }
    },
  };
}

/** Lets every granted loop run to its next send(). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** `streams` loops of `client`, each sending `chunk`-byte chunks until stopped; `bytes` counts what was granted. */
function pull(scheduler: ByteScheduler, client: string, streams: number, chunk = CHUNK) {
  const state = { bytes: 0, stopped: false };
  for (let i = 0; i < streams; i++) {
    void (async () => {
      while (!state.stopped) {
        await scheduler.send(client, chunk);
        if (!state.stopped) state.bytes += chunk;
      }
    })();
  }
  return state;
}

const scheduler = (clock: SchedulerClock, bytesPerSecond: number) => new ByteScheduler({ bytesPerSecond, burstBytes: CHUNK, clock });

test('one client pulling many 4 MB images gets its share, another client’s image is not starved', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 4 * MB);
  const greedy = pull(bytes, '192.0.2.1', 16);
  await settle();
  const bystander = pull(bytes, '192.0.2.2', 1);
  await time.advance(2000);
  greedy.stopped = bystander.stopped = true;
  // 8 MB in 2 s: half each, within a chunk, although one client has sixteen streams to one.
  assert.ok(Math.abs(greedy.bytes - bystander.bytes) <= CHUNK, `greedy ${greedy.bytes}, bystander ${bystander.bytes}`);
  assert.ok(bystander.bytes >= 4 * MB - 2 * CHUNK, `bystander ${bystander.bytes}`);
});

test('many clients at once: each gets an equal share of the budget', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 8 * MB);
  const clients = Array.from({ length: 64 }, (_, i) => pull(bytes, `192.0.2.${i + 1}`, 1 + (i % 5)));
  await time.advance(2000);
  for (const c of clients) c.stopped = true;
  const shares = clients.map((c) => c.bytes);
  assert.ok(Math.max(...shares) - Math.min(...shares) <= CHUNK, `shares from ${Math.min(...shares)} to ${Math.max(...shares)}`);
});

test('a client alone gets the whole budget (work-conserving), and never more', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 4 * MB);
  const alone = pull(bytes, '192.0.2.1', 3);
  await time.advance(1000);
  alone.stopped = true;
  // The budget of one second, plus the bucket it started with, plus at most one chunk of debt.
  assert.ok(alone.bytes >= 4 * MB - CHUNK && alone.bytes <= 4 * MB + 2 * CHUNK, `sent ${alone.bytes}`);
});

test('the instance never sends more than its budget, however many clients pull', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 2 * MB);
  const clients = Array.from({ length: 40 }, (_, i) => pull(bytes, `192.0.2.${i + 1}`, 4));
  await time.advance(3000);
  for (const c of clients) c.stopped = true;
  const total = clients.reduce((n, c) => n + c.bytes, 0);
  assert.ok(total <= 6 * MB + 2 * CHUNK && total >= 6 * MB - 2 * CHUNK, `sent ${total}`);
});

test('a client sending large chunks is paid in bytes, not in turns: no larger share than one with chunks 16 times smaller', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 4 * MB);
  const large = pull(bytes, '192.0.2.1', 2, 256 * KB);
  const small = pull(bytes, '192.0.2.2', 2, 16 * KB);
  await time.advance(2000);
  large.stopped = small.stopped = true;
  // Chunk for chunk, the large ones would take 16 times the bytes.
  assert.ok(Math.abs(large.bytes - small.bytes) <= 256 * KB, `large ${large.bytes}, small ${small.bytes}`);
  assert.ok(large.bytes + small.bytes >= 8 * MB - CHUNK, `sent ${large.bytes + small.bytes}`);
});

test('a client that was idle saves no credit: it rejoins at an equal share, not with a burst', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 4 * MB);
  const steady = pull(bytes, '192.0.2.1', 4);
  await time.advance(1000);
  const before = steady.bytes;
  const late = pull(bytes, '192.0.2.2', 4);
  await time.advance(1000);
  steady.stopped = late.stopped = true;
  assert.ok(Math.abs(steady.bytes - before - late.bytes) <= CHUNK, `steady ${steady.bytes - before}, late ${late.bytes}`);
});

test('without a budget every chunk passes at once, with no time passing', async () => {
  const bytes = new ByteScheduler({ bytesPerSecond: 0, burstBytes: 0, clock: controlledClock().clock });
  const granted = await Promise.all(['a', 'a', 'a', 'b'].map((client) => bytes.send(client, 4 * MB).then(() => client)));
  assert.equal(granted, ['a', 'a', 'a', 'b']);
  assert.is(bytes.waitingClients, 0);
});

test('a client with one stream, asking for its next chunk only after the last was granted, still gets half against sixteen streams', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 4 * MB);
  const greedy = pull(bytes, '192.0.2.1', 16);
  // Its next chunk comes 2 ms after each grant (its upstream read): it is never waiting when the
  // grant before its own is made.
  const single = { bytes: 0, stopped: false };
  void (async () => {
    while (!single.stopped) {
      await bytes.send('192.0.2.2', 16 * KB);
      single.bytes += 16 * KB;
      await new Promise((resolve) => time.clock.after(2, () => resolve(undefined)));
    }
  })();
  await time.advance(2000);
  greedy.stopped = single.stopped = true;
  assert.ok(single.bytes >= 4 * MB - 4 * CHUNK, `single ${single.bytes}, greedy ${greedy.bytes}`);
});

test('when the event loop runs late the budget is cut, down to a sixteenth; on time again it grows back to the whole', async () => {
  const time = controlledClock();
  const bytes = scheduler(time.clock, 16 * MB);
  const pulling = pull(bytes, '192.0.2.1', 4);
  await time.advance(500);
  assert.is(bytes.bytesPerSecond, 16 * MB);
  time.lag.ms = 30;
  await time.advance(3000);
  assert.is(bytes.bytesPerSecond, 1 * MB, 'cut to a sixteenth');
  const before = pulling.bytes;
  await time.advance(1000);
  assert.ok(pulling.bytes - before <= 1 * MB + 2 * CHUNK, `sent ${pulling.bytes - before} in a second of lag`);
  time.lag.ms = 0;
  await time.advance(3000);
  pulling.stopped = true;
  assert.is(bytes.bytesPerSecond, 16 * MB, 'back to the whole budget');
});

test.run();
