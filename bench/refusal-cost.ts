// CPU per refusal inside one process: the service as src/app.ts builds it (rate limiter on, request
// log written to stdout, TRUST_PROXY on for loopback), and N requests of 4,096 clients, each named
// by X-Forwarded-For as an IPv6 /64 of its own (as bench:fairness's attackers behind a proxy), all
// past their rate limit: each is refused 429 through the whole middleware chain. Past capacity the
// instance refuses hundreds of requests a second (bench:fairness at 512 addresses: 900 a second,
// the event loop never idle with 1 to 10 pages in flight), so what a refusal costs is what is left
// for pages. Driven through koa.callback() on a socket that swallows what is written, as
// bench/hit-cost.ts does: two trees compared one after the other differ by their middleware.
// `npx tsx bench/refusal-cost.ts [N] > /dev/null` prints to stderr.
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { LOCAL_DNS_SERVERS } from '../test/helpers/local-dns.js';
import { ask } from './lib/in-process.js';

const N = Number(process.argv[2] ?? 30_000);
const CLIENTS = 4096;
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  TRUST_PROXY: '127.0.0.1',
  RATE_LIMIT_MAX: '1',
  RATE_LIMIT_WINDOW_MS: '3600000',
  DNS_SERVERS: LOCAL_DNS_SERVERS,
});
const app = await createApp(config, {});
const handler = app.koa.callback();
// A page nobody fetches: the first request of each client is refused at validation (a private address), the rest by the rate limit.
const target = `/v1/metadata?url=${encodeURIComponent('http://10.0.0.1/page')}`;

function refused(k: number): Promise<number> {
  const forwardedFor = `2001:db8:${(k >> 8).toString(16)}:${(k & 255).toString(16)}::1`;
  return ask(handler, { url: target, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': forwardedFor } });
}

for (let k = 0; k < CLIENTS; k++) await refused(k);
const status = await refused(0);
if (status !== 429) throw new Error(`the request was not refused by the rate limit: ${status}`);
for (let i = 0; i < 2000; i++) await refused(i % CLIENTS);
const before = process.cpuUsage();
let others = 0;
for (let i = 0; i < N; i++) if ((await refused(i % CLIENTS)) !== 429) others++;
const used = process.cpuUsage(before);
if (others > 0) throw new Error(`${others} of ${N} requests were not refused by the rate limit`);
console.error(`${((used.user + used.system) / N).toFixed(1)} µs of CPU per refusal (429, ${N} requests of ${CLIENTS} clients)`);
process.exit(0);
