// A cap on upstream fetches in flight per instance, with a bounded queue: past it,
// Overloaded at once, not a pile-up. A slot is held until the body ends or is closed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FetchTimeout, Overloaded } from '../../src/errors.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import type { ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { respond, startUpstream } from '../helpers/upstream.js';
import { readAll, rejection, testConfig, lookupResolver } from './harness.js';
import { until } from '../helpers/until.js';

const test = suite('safeFetch concurrency cap');

test('two in flight, one queued, the fourth is Overloaded at once; the queue drains in order', async () => {
  const held: ServerResponse[] = [];
  const up = await startUpstream({
    routes: {
      '/hold': (_req, res) => {
        held.push(res as ServerResponse);
      },
      '/quick': respond(200, 'quick'),
    },
  });
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ MAX_CONCURRENT_FETCHES: '2', FETCH_QUEUE_MAX: '1' }));
  try {
    const first = safeFetch(up.url('/hold?1'), { maxBytes: 1024 });
    const second = safeFetch(up.url('/hold?2'), { maxBytes: 1024 });
    const third = safeFetch(up.url('/quick'), { maxBytes: 1024 });
    assert.is(limiter.inFlight, 2);
    assert.is(limiter.queued, 1);

    // Refused while no slot can free (both held pages wait for this test to answer them): at once,
    // not after a wait in the queue.
    const fourth = await rejection(safeFetch(up.url('/quick'), { maxBytes: 1024 }));
    assert.instance(fourth, Overloaded);
    assert.is(fourth.message, 'The service is busy; retry in a second.');

    await until(() => held.length >= 2, 'two fetches held');
    assert.is(up.hits('/quick'), 0, 'the queued fetch has not started');

    // The first answer's headers arrive, but its slot stays taken until its body is read.
    held[0]!.writeHead(200);
    held[0]!.write('one');
    const firstRes = await first;
    assert.equal([limiter.inFlight, limiter.queued], [2, 1], 'headers alone do not free the slot');
    assert.is(up.hits('/quick'), 0, 'the queued fetch has still not started');
    held[0]!.end();
    assert.is((await readAll(firstRes.body)).toString(), 'one');

    const thirdRes = await third;
    assert.is((await readAll(thirdRes.body)).toString(), 'quick');
    assert.is(limiter.queued, 0);

    held[1]!.writeHead(200);
    held[1]!.end('two');
    assert.is((await readAll((await second).body)).toString(), 'two');
    assert.is(limiter.inFlight, 0);
  } finally {
    await close();
    await up.close();
  }
});

/**
 * One fetch slot, taken by the test itself (released by `release`), and an upstream whose `/hold`
 * never answers: what waits for the slot waits on the test, not on another fetch's deadline (a
 * race a busy machine could decide either way).
 */
async function heldSlot() {
  const up = await startUpstream({ routes: { '/hold': () => {} } });
  const fetcher = createSafeFetch(testConfig({ MAX_CONCURRENT_FETCHES: '1', FETCH_QUEUE_MAX: '5', FETCH_TIMEOUT_MS: '300' }));
  const release = await fetcher.limiter.acquire(new AbortController().signal, { client: null, host: 'holder.test' });
  return { ...fetcher, up, release, closeAll: () => Promise.all([fetcher.close(), up.close()]) };
}

test('a queued fetch counts its wait against the deadline and leaves the queue at it, Overloaded', async () => {
  const { safeFetch, limiter, up, release, closeAll } = await heldSlot();
  try {
    const queued = rejection(safeFetch(up.url('/hold?queued'), { maxBytes: 1024 }));
    assert.is(limiter.queued, 1);
    const queuedErr = await queued;
    // Our own saturation, never the page's failure: a 503 to the client, nothing cached.
    assert.instance(queuedErr, Overloaded);
    assert.is((queuedErr as Overloaded).reason, 'deadline of 300 ms passed while waiting for a fetch slot');
    assert.is(limiter.queued, 0);
    assert.is(limiter.inFlight, 1, 'only the held slot');
    assert.is(up.hits('/hold'), 0, 'the queued fetch never reached the upstream');
    release();
    const heldWholeDeadline = await rejection(safeFetch(up.url('/hold'), { maxBytes: 1024 }));
    assert.instance(heldWholeDeadline, FetchTimeout);
    assert.ok((heldWholeDeadline as FetchTimeout).pageFailure, 'the page that held its slot the whole deadline timed out by itself');
    assert.is(limiter.inFlight, 0);
  } finally {
    await closeAll();
  }
});

test('a fetch that waited for its slot and then timed out is not held against the page', async () => {
  const { safeFetch, limiter, up, release, closeAll } = await heldSlot();
  try {
    const waited = rejection(safeFetch(up.url('/hold'), { maxBytes: 1024 }));
    assert.is(limiter.queued, 1);
    release(); // granted at once, after a wait: part of its deadline went to our queue
    const err = await waited;
    assert.instance(err, FetchTimeout);
    assert.not.ok((err as FetchTimeout).pageFailure, 'a deadline partly spent in our queue is not held against the page');
    assert.is(up.hits('/hold'), 1);
  } finally {
    await closeAll();
  }
});

test('FETCH_QUEUE_MAX=0: no queue, Overloaded as soon as every slot is taken', async () => {
  const up = await startUpstream({ routes: { '/hold': () => {} } });
  const { safeFetch, close } = createSafeFetch(testConfig({ MAX_CONCURRENT_FETCHES: '1', FETCH_QUEUE_MAX: '0', FETCH_TIMEOUT_MS: '300' }));
  try {
    const first = rejection(safeFetch(up.url('/hold'), { maxBytes: 1024 }));
    assert.instance(await rejection(safeFetch(up.url('/hold'), { maxBytes: 1024 })), Overloaded);
    await first;
  } finally {
    await close();
    await up.close();
  }
});

test('a resolver refusing a lookup because it is overloaded (EDNSOVERLOAD) is Overloaded, not the page failing', async () => {
  const overloaded = ((hostname: string, _options: unknown, callback: (err: Error) => void) =>
    setImmediate(() =>
      callback(Object.assign(new Error(`too many lookups in flight for ${hostname}`), { code: 'EDNSOVERLOAD' })),
    )) as unknown as LookupFunction;
  const { safeFetch, close } = createSafeFetch(testConfig(), { resolver: lookupResolver(overloaded) });
  try {
    const err = await rejection(safeFetch(new URL('http://busy.test:8080/'), { maxBytes: 1024 }));
    assert.instance(err, Overloaded);
    assert.is((err as Overloaded).reason, 'the resolver has too many lookups in flight');
    assert.not.ok((err as Overloaded).pageFailure);
  } finally {
    await close();
  }
});

test.run();
