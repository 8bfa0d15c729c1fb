// CPU per cached hit inside one process: the service as src/app.ts builds it (rate limiter on,
// request log written to stdout), one answer stored, then N requests driven through
// koa.callback() on a socket that swallows what is written: no syscalls, no HTTP parsing, no load
// generator on the same cores, so two trees compared one after the other differ by their
// middleware, not by the machine. `npx tsx bench/hit-cost.ts [N] > /dev/null` prints to stderr.
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { lazyBodies } from '../src/content-coding.js';
import { LOCAL_DNS_SERVERS } from '../test/helpers/local-dns.js';
import { ask } from './lib/in-process.js';

const N = Number(process.argv[2] ?? 30_000);
// One client asks every request: its pace (CLIENT_REQUESTS_PER_SECOND, 50 a second after a burst)
// would hold them, and the measure would be the wait, so it is off; the middleware still runs.
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  RATE_LIMIT_MAX: '1000000000',
  CLIENT_REQUESTS_PER_SECOND: '0',
  DNS_SERVERS: LOCAL_DNS_SERVERS,
});
const app = await createApp(config, {});
const handler = app.koa.callback();
const target = `/v1/metadata?url=${encodeURIComponent('https://example.com/article')}`;
const answer = { title: 'A title', description: 'd'.repeat(200), url: 'https://example.com/article' };
app.responses.set(target, lazyBodies(Buffer.from(JSON.stringify(answer))), Date.now() + 3_600_000);

function hit(): Promise<number> {
  return ask(handler, { url: target, remoteAddress: '203.0.113.7' });
}

const status = await hit();
if (status !== 200) throw new Error(`the stored answer was not served: ${status}`);
for (let i = 0; i < 2000; i++) await hit();
const before = process.cpuUsage();
const seen: Record<number, number> = {};
for (let i = 0; i < N; i++) {
  const s = await hit();
  seen[s] = (seen[s] ?? 0) + 1;
}
const used = process.cpuUsage(before);
if (seen[200] !== N) throw new Error(`${N - (seen[200] ?? 0)} of ${N} requests were not served the stored answer: ${JSON.stringify(seen)}`);
console.error(`${((used.user + used.system) / N).toFixed(1)} µs of CPU per cached hit (${N} hits)`);
process.exit(0);
