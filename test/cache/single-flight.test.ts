import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { RedisExtractionStore, type Extraction } from '../../src/cache/extraction-store.js';
import { SingleFlight } from '../../src/cache/single-flight.js';
import { testRedisUrl } from '../helpers/redis.js';
import { gate, until } from '../helpers/until.js';

// Two instances (each its own Redis connection and store) ask for one page; the first fetches it
// for 1.5 s, the second waits. Redis's MONITOR counts the commands the waiting instance sends
// while it waits: a handful, woken by the first's notice (polling every 25 ms, as before, sent 100).

const REDIS_URL = testRedisUrl(15);
const FETCH_MS = 1_500;

test('an instance waiting for another instance’s fetch sends a handful of commands, and gets its result', async () => {
  const monitorClient = new Redis(REDIS_URL);
  const monitor = await monitorClient.monitor();
  const first = new Redis(REDIS_URL);
  const second = new Redis(REDIS_URL);
  const key = `https://flight.example/${process.pid}/${Date.now()}`;
  let storeB: RedisExtractionStore | undefined;
  const result: Extraction = { ok: false, code: 'FETCH_FAILED', reason: 'the fetched one', expiresAt: Date.now() + 60_000 };
  try {
    await Promise.all([first.ping(), second.ping()]);
    const secondAddress = `127.0.0.1:${second.stream.localPort}`;
    const sent: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source.endsWith(secondAddress) && args.some((arg) => arg.includes(key))) sent.push(args[0]!);
    });
    const storeA = new RedisExtractionStore(first, 'lp:');
    storeB = new RedisExtractionStore(second, 'lp:');
    storeB.listen();
    await until(async () => Number(((await first.call('PUBSUB', 'NUMSUB', 'lp:flights-done')) as [string, number])[1]) >= 1, 'B listening');
    const fetching = gate();
    const flightA = new SingleFlight(storeA, 10_000).run(
      key,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, FETCH_MS));
        await storeA.set(key, result);
        return result;
      },
      () => {},
    );
    let otherInstance = false;
    const flightB = new SingleFlight(storeB, 10_000).run(
      key,
      async () => {
        fetching.open();
        throw new Error('the waiting instance fetched');
      },
      () => (otherInstance = true),
    );
    const started = performance.now();
    assert.equal(await flightB.extraction, result);
    const waited = performance.now() - started;
    assert.equal(await flightA.extraction, result);
    assert.ok(otherInstance, 'B took A’s result');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the last commands reach MONITOR
    assert.ok(waited < FETCH_MS + 300, `B answered when A’s fetch ended (${waited.toFixed(0)} ms)`);
    assert.ok(sent.length <= 6, `commands from the waiting instance: ${sent.join(' ')}`);
    assert.ok(sent.length >= 2, `the count sees B's commands: ${sent.join(' ')}`);
  } finally {
    storeB?.close();
    monitor.disconnect();
    monitorClient.disconnect();
    first.disconnect();
    second.disconnect();
  }
});

test.run();
