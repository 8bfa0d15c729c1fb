// npm run soak: 10,000 requests at concurrency 100 from many client addresses
// (127.0.0.2 … 127.0.0.201) against upstreams that are correct, slow, dripping, resetting and huge.
// Everything runs on loopback. Pass: zero 5xx, zero unhandled rejections, every request ended by
// the fetch deadline + 1 s, RSS after GC within +10% of the start, open descriptors back to the
// baseline. Prints the figures; exits 1 when a criterion fails.
// Three processes: this load generator, the upstreams, and the service (with --expose-gc, so its
// RSS is compared after a full collection).

import { fork } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { pino } from 'pino';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createServer } from '../src/server.js';
import { LOCAL_DNS_SERVERS } from '../test/helpers/local-dns.js';

const TOTAL = Number(process.env.SOAK_REQUESTS ?? 10_000);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 100);
const CLIENTS = 200;
const DEADLINE_MS = 2_000;

let unhandled = 0;
process.on('unhandledRejection', () => unhandled++);
process.on('uncaughtException', () => unhandled++);

const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 100));
  }
};
const rssMb = () => process.memoryUsage().rss / 1024 / 1024;
const fds = () => readdirSync('/proc/self/fd').length;

// ---- upstreams (in their own process, so their work is not counted as the service's) ----------
const page = (title: string) =>
  `<!doctype html><html><head><title>${title}</title><meta property="og:title" content="${title}"></head><body>${'x'.repeat(2000)}</body></html>`;

function serveUpstreams(): void {
  const huge = Buffer.concat([Buffer.from('<html><head><title>Huge</title></head><body>'), Buffer.alloc(20 * 1024 * 1024, 97)]);
  const upstream = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    switch (path) {
      case '/ok':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(page('ok'));
      case '/slow':
        return void setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(page('slow'));
        }, 1_000);
      case '/drip': {
        res.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => res.write('a'), 100);
        return void res.once('close', () => clearInterval(timer));
      }
      case '/reset':
        return void req.socket.destroy();
      case '/huge':
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': huge.length });
        return res.end(huge);
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  upstream.on('clientError', (_e, socket) => socket.destroy());
  upstream.listen(0, '127.0.0.1', () => process.send!((upstream.address() as AddressInfo).port));
}

// A child whose parent is gone (killed, timed out) must not linger holding ports and pipes.
if (process.argv[2]) process.on('disconnect', () => process.exit(0));

if (process.argv[2] === '--upstream') {
  serveUpstreams();
  await new Promise(() => {}); // serve until killed
}
const upstreamProcess = fork(fileURLToPath(import.meta.url), ['--upstream'], { execArgv: ['--import', 'tsx'] });
const upstreamPort = await new Promise<number>((resolve) => upstreamProcess.once('message', (port) => resolve(port as number)));
const upstreamOrigin = `http://127.0.0.1:${upstreamPort}`;

// ---- the service (its own process: the load generator's work must not count as its own) ------
// It answers IPC messages: 'stats' → RSS after a full GC, open descriptors, event-loop delay.
async function serveService(): Promise<void> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_NETWORKS: 'true',
    FETCH_TIMEOUT_MS: String(DEADLINE_MS),
    PROBE_IMAGES: 'false',
    CACHE_MAX_ENTRIES: '2000',
    // The one upstream process stands for many sites: no per-destination share of fetch slots.
    MAX_FETCHES_PER_HOST: '0',
    DNS_SERVERS: LOCAL_DNS_SERVERS,
  });
  const logger = process.env.SOAK_LOG ? pino(pino.destination(process.env.SOAK_LOG)) : pino({ level: 'silent' });
  const app = await createApp(config, { logger });
  const server = createServer(app, config);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', async (msg) => {
    if (msg !== 'stats') return;
    await settle();
    process.send!({ rss: rssMb(), fds: fds(), loop: app.health.report().event_loop_delay_ms, unhandled });
  });
}

if (process.argv[2] === '--service') {
  await serveService();
  await new Promise(() => {});
}
const serviceProcess = fork(fileURLToPath(import.meta.url), ['--service'], { execArgv: ['--expose-gc', '--import', 'tsx'] });
const servicePort = await new Promise<number>((resolve) => serviceProcess.once('message', (m) => resolve((m as { port: number }).port)));
const service = `http://127.0.0.1:${servicePort}`;
interface Stats {
  rss: number;
  fds: number;
  loop: { p99: number; max: number };
  unhandled: number;
}
const stats = () =>
  new Promise<Stats>((resolve) => {
    serviceProcess.once('message', (m) => resolve(m as Stats));
    serviceProcess.send('stats');
  });

// Mix: mostly fresh pages, some repeats (cache hits), and every kind of bad upstream.
const KINDS: Array<[string, number]> = [
  ['/ok', 50],
  ['/slow', 15],
  ['/drip', 10],
  ['/reset', 15],
  ['/huge', Number(process.env.SOAK_HUGE_WEIGHT ?? 5)],
  ['/ok?repeat', 5],
];
const weights = KINDS.reduce((sum, [, w]) => sum + w, 0);
function pick(i: number): string {
  let r = (i * 7919) % weights;
  for (const [kind, w] of KINDS) {
    if (r < w) return kind === '/ok?repeat' ? `${upstreamOrigin}/ok?repeat=${i % 20}` : `${upstreamOrigin}${kind}?n=${i}`;
    r -= w;
  }
  return `${upstreamOrigin}/ok`;
}

async function run(count: number, offset: number) {
  const pools = Array.from({ length: CLIENTS }, (_, i) => new Pool(service, { connections: 16, localAddress: `127.0.0.${i + 2}` }));
  const statuses = new Map<number, number>();
  let late = 0;
  let failedRequests = 0;
  let slowest = 0;
  let next = 0;
  async function worker() {
    while (next < count) {
      const i = offset + next++;
      const started = performance.now();
      try {
        const res = await pools[i % CLIENTS]!.request({ method: 'GET', path: `/v1/metadata?url=${encodeURIComponent(pick(i))}` });
        await res.body.dump();
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      } catch {
        failedRequests++;
      }
      const took = performance.now() - started;
      slowest = Math.max(slowest, took);
      if (took > DEADLINE_MS + 1_000) late++;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await Promise.all(pools.map((p) => p.close()));
  return { statuses, late, failedRequests, slowest };
}

// Warm up (JIT, caches, pools), then take the baseline.
await run(500, 1_000_000);
const before = await stats();
const started = performance.now();
const result = await run(TOTAL, 0);
const seconds = (performance.now() - started) / 1000;
await new Promise((r) => setTimeout(r, 500));
const after = await stats();
const [rssStart, rssEnd, fdStart, fdEnd, loop] = [before.rss, after.rss, before.fds, after.fds, after.loop];
unhandled += after.unhandled;

const fiveHundreds = [...result.statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
const rows: Array<[string, string, boolean]> = [
  ['requests', `${TOTAL} at concurrency ${CONCURRENCY} from ${CLIENTS} addresses in ${seconds.toFixed(1)} s`, true],
  [
    'statuses',
    [...result.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, c]) => `${s}×${c}`)
      .join(' '),
    true,
  ],
  ['5xx answers', String(fiveHundreds), fiveHundreds === 0],
  ['requests that failed outright', String(result.failedRequests), result.failedRequests === 0],
  ['unhandled rejections / exceptions (service and driver)', String(unhandled), unhandled === 0],
  [`ended after deadline + 1 s (${DEADLINE_MS + 1000} ms)`, `${result.late} (slowest ${Math.round(result.slowest)} ms)`, result.late === 0],
  [
    'service RSS after GC',
    `${rssStart.toFixed(1)} MB → ${rssEnd.toFixed(1)} MB (${(((rssEnd - rssStart) / rssStart) * 100).toFixed(1)}%)`,
    rssEnd <= rssStart * 1.1,
  ],
  ['service event-loop delay during the run', `p99 ${loop.p99} ms, max ${loop.max} ms`, true],
  ['service open file descriptors', `${fdStart} → ${fdEnd}`, fdEnd <= fdStart],
];
for (const [name, value, ok] of rows) console.log(`${ok ? 'ok  ' : 'FAIL'}  ${name.padEnd(44)} ${value}`);

serviceProcess.kill('SIGKILL');
upstreamProcess.kill('SIGKILL');
process.exit(rows.every(([, , ok]) => ok) ? 0 : 1);
