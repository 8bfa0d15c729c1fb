// Byte cap and total deadline: an endless body stops at maxBytes and the upstream is
// closed; a body dripping a byte a second and stalled headers end at FETCH_TIMEOUT_MS.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { FetchFailed, FetchTimeout } from '../../src/errors.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { H2_CANCEL_REACHES_UPSTREAM, countSkippedH2Cancel, drip, endless, respond, stall, startUpstream, type UpstreamProtocol } from '../helpers/upstream.js';
import { readAll, rejection, testConfig } from './harness.js';

const test = suite('safeFetch limits');
const MiB = 1024 * 1024;

/** Resolves with the outcome, or 'still open' if the upstream did not see the end within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([promise, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref())]);
}

for (const protocol of ['http', 'h2'] as UpstreamProtocol[]) {
  if (protocol === 'h2') countSkippedH2Cancel(test, 'endless body (h2)');
  test(`endless body (${protocol}): read stops at maxBytes and the upstream is closed`, async () => {
    const up = await startUpstream({ protocol, routes: { '/endless': endless(Buffer.alloc(64 * 1024, 'a')) } });
    const { safeFetch, close, limiter } = createSafeFetch(testConfig());
    try {
      const res = await safeFetch(up.url('/endless'), { maxBytes: 2 * MiB });
      const body = await readAll(res.body);
      assert.is(body.length, 2 * MiB);
      assert.is(res.bytesRead, 2 * MiB);
      assert.is(res.truncated, true);
      assert.is(limiter.inFlight, 0, 'the slot is free');
      if (protocol === 'http' || H2_CANCEL_REACHES_UPSTREAM) assert.is(await within(up.requests[0]!.outcome, 2000), 'closed early');
    } finally {
      await close();
      await up.close();
    }
  });
}

test('a body of exactly maxBytes is complete, not truncated', async () => {
  const up = await startUpstream({ routes: { '/exact': respond(200, Buffer.alloc(1000, 'x')) } });
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const res = await safeFetch(up.url('/exact'), { maxBytes: 1000 });
    assert.is((await readAll(res.body)).length, 1000);
    assert.is(res.truncated, false);
  } finally {
    await close();
    await up.close();
  }
});

test('a 20 MB page: 2 MiB read at the page cap, all of it (intact) when the cap allows', async () => {
  const page = randomBytes(20 * 1000 * 1000);
  const up = await startUpstream({ routes: { '/big': respond(200, page, { 'content-type': 'text/html' }) } });
  const config = testConfig();
  const { safeFetch, close } = createSafeFetch(config);
  try {
    const capped = await safeFetch(up.url('/big'), { maxBytes: config.maxPageBytes });
    const head = await readAll(capped.body);
    assert.is(config.maxPageBytes, 2 * MiB);
    assert.is(head.length, 2 * MiB);
    assert.ok(head.equals(page.subarray(0, 2 * MiB)));
    assert.is(capped.truncated, true);

    const whole = await safeFetch(up.url('/big'), { maxBytes: 32 * MiB });
    const all = await readAll(whole.body);
    assert.is(createHash('sha256').update(all).digest('hex'), createHash('sha256').update(page).digest('hex'));
    assert.is(whole.truncated, false);
  } finally {
    await close();
    await up.close();
  }
});

test('dripping body (a byte a second) ends at the total deadline with FetchTimeout', async () => {
  const up = await startUpstream({ routes: { '/drip': drip(1000) } });
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ FETCH_TIMEOUT_MS: '1500' }));
  try {
    const started = Date.now();
    const res = await safeFetch(up.url('/drip'), { maxBytes: MiB });
    assert.is(res.status, 200);
    const received: Uint8Array[] = [];
    const err = await rejection(
      (async () => {
        for await (const chunk of res.body) received.push(chunk);
      })(),
    );
    const elapsed = Date.now() - started;
    assert.instance(err, FetchTimeout);
    assert.equal((err as FetchTimeout).failure, { reason: 'timeout', message: 'The site did not answer within 1.5 s.' });
    assert.match((err as FetchTimeout).reason, /^deadline of 1500 ms passed/);
    assert.ok(elapsed >= 1450 && elapsed < 2500, `ended after ${elapsed} ms`);
    assert.is(Buffer.concat(received).toString(), 'a', 'one byte arrived before the deadline');
    assert.is(limiter.inFlight, 0);
    assert.is(await within(up.requests[0]!.outcome, 1000), 'closed early');
  } finally {
    await close();
    await up.close();
  }
});

for (const protocol of ['http', 'h2'] as UpstreamProtocol[]) {
  test(`stalled headers (${protocol}) end at the total deadline with FetchTimeout`, async () => {
    const up = await startUpstream({ protocol, routes: { '/stall': stall() } });
    const { safeFetch, close, limiter } = createSafeFetch(testConfig({ FETCH_TIMEOUT_MS: '800' }));
    try {
      const started = Date.now();
      const err = await rejection(safeFetch(up.url('/stall'), { maxBytes: MiB }));
      const elapsed = Date.now() - started;
      assert.instance(err, FetchTimeout);
      assert.is((err as FetchTimeout).reason, 'deadline of 800 ms passed');
      assert.ok(elapsed >= 780 && elapsed < 1500, `ended after ${elapsed} ms`);
      assert.is(limiter.inFlight, 0);
      assert.is(await within(up.requests[0]!.outcome, 1000), 'closed early');
    } finally {
      await close();
      await up.close();
    }
  });
}

test('an unread response frees its slot and its upstream at the deadline', async () => {
  const up = await startUpstream({ routes: { '/endless': endless(Buffer.alloc(16 * 1024)) } });
  const { safeFetch, close, limiter } = createSafeFetch(testConfig({ FETCH_TIMEOUT_MS: '500' }));
  try {
    await safeFetch(up.url('/endless'), { maxBytes: MiB });
    assert.is(limiter.inFlight, 1);
    assert.is(await within(up.requests[0]!.outcome, 1500), 'closed early');
    assert.is(limiter.inFlight, 0);
  } finally {
    await close();
    await up.close();
  }
});

countSkippedH2Cancel(test, 'close() mid-body');
test('close() mid-body closes the upstream at once and frees the slot', async () => {
  const up = await startUpstream({ protocol: 'h2', routes: { '/endless': endless(Buffer.alloc(16 * 1024)) } });
  const { safeFetch, close, limiter } = createSafeFetch(testConfig());
  try {
    const res = await safeFetch(up.url('/endless'), { maxBytes: 64 * MiB });
    const it = res.body[Symbol.asyncIterator]();
    await it.next();
    res.close();
    assert.is(limiter.inFlight, 0);
    if (H2_CANCEL_REACHES_UPSTREAM) assert.is(await within(up.requests[0]!.outcome, 1000), 'closed early');
    const err = await rejection(it.next());
    assert.instance(err, FetchFailed);
  } finally {
    await close();
    await up.close();
  }
});

test('the caller aborting (client gone) ends the fetch as FetchFailed, not a timeout', async () => {
  const up = await startUpstream({ routes: { '/stall': stall() } });
  const { safeFetch, close } = createSafeFetch(testConfig());
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await rejection(safeFetch(up.url('/stall'), { maxBytes: MiB, signal: controller.signal }));
    assert.instance(err, FetchFailed);
    assert.not.instance(err, FetchTimeout);
    assert.is((err as FetchFailed).reason, 'aborted by the caller');
  } finally {
    await close();
    await up.close();
  }
});

test.run();
