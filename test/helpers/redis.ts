// The Redis of the test run: test/run.mjs (what `npm test` runs) starts one of its own on a free
// loopback port and passes its URL as TEST_REDIS_URL, so tests never touch a Redis the machine
// runs for something else. Test files that run at once keep apart by database number.

/** redis://127.0.0.1:PORT/<db> of the run's Redis. */
export function testRedisUrl(db = 0): string {
  const base = process.env.TEST_REDIS_URL;
  if (!base) {
    throw new Error('TEST_REDIS_URL is not set: run this file through `node test/run.mjs <path-prefix>` (or `npm test`), which starts a Redis for the tests');
  }
  const url = new URL(base);
  url.pathname = `/${db}`;
  return url.href;
}

/** Host and port of the run's Redis, for a proxy placed in front of it. */
export function testRedisAddress(): { host: string; port: number } {
  const url = new URL(testRedisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}
