// Fetch slots shared fairly: a share per client and a cap per destination on top of the
// instance's; a full queue refuses the client using most, so a few clients (or one slow site)
// cannot starve the rest. The scheduler's order of grants is tested in test/fairness/fair-queue.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { FetchTimeout, Overloaded } from '../../src/errors.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/until.js';
import { loopbackLookup, readAll, rejection, testConfig, lookupResolver } from './harness.js';

interface Ctx {
  up: Upstream;
  held: ServerResponse[];
  /**
   * Cuts every held response, and each one asked for from now on: once a test has read the
   * slots' split, its held fetches fail at once instead of at FETCH_TIMEOUT_MS (the deadline is
   * not what these tests test).
   */
  cutHeld(): void;
}
const fair = suite<Ctx>('safeFetch fair shares');
fair.before.each(async (ctx) => {
  ctx.held = [];
  let cutting = false;
  ctx.cutHeld = () => {
    cutting = true;
    for (const res of ctx.held) res.destroy();
  };
  ctx.up = await startUpstream({
    routes: {
      '/hold': (_req, res) => void (cutting ? res.destroy() : ctx.held.push(res as ServerResponse)),
      '/quick': respond(200, 'quick'),
    },
  });
});
fair.after.each(async ({ up, held }) => {
  for (const res of held) res.destroy();
  await up.close();
});

const NAMES = ['slow.test', 'a.evil.test', 'b.evil.test', 'c.evil.test', 'fine.test'];
/** Waits until `n` fetches have reached the slots (granted, queued or held back by a share), for the split to be read. */
const reached = (limiter: { inFlight: number; queued: number; capped: number }, n: number) =>
  until(() => limiter.inFlight + limiter.queued + limiter.capped === n, `${n} fetches at the slots`);

fair('a client over its share waits in its own queue; another client is served at once', async ({ up, held }) => {
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_CONCURRENT_FETCHES: '4', FETCH_QUEUE_MAX: '2', MAX_FETCHES_PER_CLIENT: '2' }));
  try {
    const mine = [1, 2, 3, 4].map((i) => safeFetch(up.url(`/hold?${i}`), { maxBytes: 1024, client: '10.0.0.1' }));
    await reached(limiter, 4);
    assert.equal([limiter.inFlight, limiter.queued, limiter.capped], [2, 0, 2], 'two in flight, two held back by the share');
    const other = await safeFetch(up.url('/quick'), { maxBytes: 1024, client: '10.0.0.2' });
    assert.is((await readAll(other.body)).toString(), 'quick', "the other client never waited, though the first one's fetches fill the queue");
    assert.not.ok(limiter.saturated);

    await until(() => held.length >= 2, 'two fetches held');
    held[0]!.end('one');
    await readAll((await mine[0]!).body);
    await until(() => held.length >= 3, 'three fetches held');
    assert.equal([limiter.inFlight, limiter.capped], [2, 1], 'a finished fetch passes its slot to the same client');
    held[1]!.end('x');
    held[2]!.end('x');
    for (const p of mine.slice(1, 3)) await readAll((await p).body);
    await until(() => held.length >= 4, 'four fetches held');
    held[3]!.end('x');
    await readAll((await mine[3]!).body);
    assert.equal([limiter.inFlight, limiter.queued, limiter.capped], [0, 0, 0]);
  } finally {
    await close();
  }
});

fair('a client past its own queue is Overloaded at once; other clients are not', async ({ up, cutHeld }) => {
  const { safeFetch, close } = createSafeFetch(testConfig({ MAX_CONCURRENT_FETCHES: '10', MAX_FETCHES_PER_CLIENT: '1', FETCH_TIMEOUT_MS: '1000' }));
  try {
    // One in flight and 4 (OWN_QUEUE_FACTOR × 1) waiting: the sixth is refused.
    const mine = Array.from({ length: 5 }, (_, i) => rejection(safeFetch(up.url(`/hold?${i}`), { maxBytes: 1024, client: '10.0.0.1' })));
    const refused = await rejection(safeFetch(up.url('/quick'), { maxBytes: 1024, client: '10.0.0.1' }));
    assert.instance(refused, Overloaded);
    assert.is((refused as Overloaded).reason, 'the client has its full share of fetches in flight and queued');
    assert.not.ok((refused as Overloaded).pageFailure);
    const other = await safeFetch(up.url('/quick'), { maxBytes: 1024, client: '10.0.0.2' });
    assert.is(other.status, 200);
    other.close();
    cutHeld();
    await Promise.all(mine);
  } finally {
    await close();
  }
});

fair('one slow destination holds at most its share; a fetch to another destination is served at once', async ({ up, cutHeld }) => {
  const lookup = loopbackLookup(NAMES);
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_FETCHES_PER_HOST: '2', FETCH_TIMEOUT_MS: '1000' }), {
    resolver: lookupResolver(lookup),
  });
  try {
    const slow = [1, 2, 3].map((i) => rejection(safeFetch(up.url(`/hold?${i}`, 'slow.test'), { maxBytes: 1024, client: `10.0.0.${i}` })));
    await reached(limiter, 3);
    assert.equal([limiter.inFlight, limiter.capped], [2, 1]);
    const fine = await safeFetch(up.url('/quick', 'fine.test'), { maxBytes: 1024, client: '10.0.0.9' });
    assert.is((await readAll(fine.body)).toString(), 'quick');
    cutHeld();
    await Promise.all(slow);
  } finally {
    await close();
  }
});

fair('wildcard subdomains (a.evil.test, b.evil.test, c.evil.test) share one destination share', async ({ up, cutHeld }) => {
  const lookup = loopbackLookup(NAMES);
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_FETCHES_PER_HOST: '2', FETCH_TIMEOUT_MS: '1000' }), {
    resolver: lookupResolver(lookup),
  });
  try {
    const names = ['a.evil.test', 'b.evil.test', 'c.evil.test'];
    const all = names.map((name, i) => rejection(safeFetch(up.url('/hold', name), { maxBytes: 1024, client: `10.0.0.${i}` })));
    await reached(limiter, 3);
    assert.equal([limiter.inFlight, limiter.capped], [2, 1], 'the third subdomain waits behind the first two');
    cutHeld();
    await Promise.all(all);
  } finally {
    await close();
  }
});

fair("the service's own fetches (no client) are held by no client share", async ({ up, cutHeld }) => {
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_FETCHES_PER_CLIENT: '1', FETCH_TIMEOUT_MS: '1000' }));
  try {
    const own = [1, 2, 3].map((i) => rejection(safeFetch(up.url(`/hold?${i}`), { maxBytes: 1024 })));
    await reached(limiter, 3);
    assert.equal([limiter.inFlight, limiter.capped], [3, 0]);
    cutHeld();
    await Promise.all(own);
  } finally {
    await close();
  }
});

fair('a full instance queue refuses the newest waiter of the client using most, not a lighter newcomer; the instance reads saturated', async ({ up }) => {
  const { safeFetch, close, limiter } = createSafeFetch(
    testConfig({ MAX_CONCURRENT_FETCHES: '2', FETCH_QUEUE_MAX: '1', MAX_FETCHES_PER_CLIENT: '1', FETCH_TIMEOUT_MS: '1000' }),
  );
  try {
    const pending = [
      rejection(safeFetch(up.url('/hold?a1'), { maxBytes: 1024, client: '10.0.0.1' })),
      rejection(safeFetch(up.url('/hold?b1'), { maxBytes: 1024, client: '10.0.0.2' })),
    ];
    const a2 = rejection(safeFetch(up.url('/hold?a2'), { maxBytes: 1024, client: '10.0.0.1' })); // A's excess
    assert.equal([limiter.inFlight, limiter.queued, limiter.capped], [2, 0, 1]);
    // C holds nothing: A (one in flight, one waiting) uses more, so A's waiter makes room.
    pending.push(rejection(safeFetch(up.url('/hold?c1'), { maxBytes: 1024, client: '10.0.0.3' })));
    const pushedOut = await a2;
    assert.instance(pushedOut, Overloaded);
    assert.is((pushedOut as Overloaded).reason, 'a client using less needed the fetch queue');
    assert.equal([limiter.inFlight, limiter.queued, limiter.capped], [2, 1, 0]);
    assert.ok(limiter.saturated);
    // D would use as much as C, the one waiting: now the instance is full for D too.
    const refused = await rejection(safeFetch(up.url('/quick'), { maxBytes: 1024, client: '10.0.0.4' }));
    assert.instance(refused, Overloaded);
    assert.is((refused as Overloaded).reason, 'every fetch slot taken and the queue full');
    // And A, using more than C, gets no place either.
    assert.instance(await rejection(safeFetch(up.url('/hold?a3'), { maxBytes: 1024, client: '10.0.0.1' })), Overloaded);
    const errors = await Promise.all(pending);
    assert.ok(errors.every((e) => e instanceof FetchTimeout || e instanceof Overloaded));
  } finally {
    await close();
  }
});

fair('8 clients with dripping pages on random domains cannot take every slot from a ninth (64 slots, the old default)', async ({ up, cutHeld }) => {
  const names = Array.from({ length: 8 * 30 }, (_, i) => `drip${i}.attacker${i % 8}.test`);
  const lookup = loopbackLookup([...names, 'fine.test']);
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_CONCURRENT_FETCHES: '64', FETCH_TIMEOUT_MS: '1500' }), {
    resolver: lookupResolver(lookup),
  });
  try {
    const attacks = names.map((name, i) => rejection(safeFetch(up.url('/hold', name), { maxBytes: 1024, client: `10.8.0.${i % 8}` })));
    assert.ok(limiter.inFlight < 64, `${limiter.inFlight} of 64 slots taken`);
    for (let c = 0; c < 8; c++) assert.ok(limiter.heldBy(`10.8.0.${c}`) <= 8);
    const fine = await safeFetch(up.url('/quick', 'fine.test'), { maxBytes: 1024, client: '10.8.1.1' });
    assert.is((await readAll(fine.body)).toString(), 'quick');
    assert.is(fine.status, 200);
    cutHeld();
    await Promise.all(attacks);
  } finally {
    await close();
  }
});

fair('IPv6 clients are one client per /64', async ({ up, cutHeld }) => {
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_FETCHES_PER_CLIENT: '1', FETCH_TIMEOUT_MS: '1000' }));
  try {
    const all = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:3::1'].map((client) => rejection(safeFetch(up.url('/hold'), { maxBytes: 1024, client })));
    await reached(limiter, 3);
    assert.equal([limiter.inFlight, limiter.capped], [2, 1], 'the second address of the first /64 waits');
    cutHeld();
    await Promise.all(all);
  } finally {
    await close();
  }
});

fair.run();
