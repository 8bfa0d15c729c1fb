// npx tsx bench/slots.ts (npm run bench:slots) — what one held upstream fetch costs the service:
// memory (RSS) and file descriptors per fetch streaming a head that never ends, so that
// MAX_CONCURRENT_FETCHES and FETCH_QUEUE_MAX are set from a measured limit.
//
// LinkPeek runs compiled in its own process (bench/lib/linkpeek-server.ts) with the caps lifted.
// This process serves pages on loopback that send their headers and 4 KiB of `<head>`, then one
// byte every 5 s and never end, and asks the service for N distinct ones at once, each over its
// own connection (agent: false), as N clients would. Once /healthz counts N fetches in flight,
// the service's RSS and open descriptors (/proc/<pid>) are read; per-fetch figures are the
// difference to the idle service, divided by N. Writes bench/results/slots.md, keeping its
// hand-written section on the defaults (from DECISION_HEADING on).
// Options: --steps 1000,2000,4000 (fetches held; add 6000 to see the service give out, about 4
// minutes in all), --out FILE. About 90 s.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { linkpeek } from './lib/contenders.js';
import { REPO_ROOT } from './lib/corpus.js';
import { memoryOf } from './lib/proc.js';

const { values: args } = parseArgs({
  options: {
    steps: { type: 'string', default: '1000,2000,4000' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench/results/slots.md') },
  },
});
const steps = args.steps!.split(',').map(Number);
const DECISION_HEADING = '## The defaults taken from it';
const HEAD = `<!doctype html><html><head><title>held</title>${'<meta name="x" content="0123456789abcdef">'.repeat(100)}`;

const pages = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.write(HEAD);
  const timer = setInterval(() => res.write(' '), 5_000);
  res.on('close', () => clearInterval(timer));
});
pages.keepAliveTimeout = 600_000;
await new Promise<void>((resolve) => pages.listen(0, '127.0.0.2', resolve));
const pagesOrigin = `http://127.0.0.2:${(pages.address() as AddressInfo).port}`;

const max = String(Math.max(...steps) + 100);
const service = await linkpeek('LinkPeek', {
  MAX_CONCURRENT_FETCHES: max,
  FETCH_QUEUE_MAX: max,
  FETCH_TIMEOUT_MS: '600000',
  DNS_TIMEOUT_MS: '2000',
  REQUEST_TIMEOUT_MS: '600000',
  LOG_LEVEL: 'warn',
}).start();

const fds = () => readdirSync(`/proc/${service.pid}/fd`).length;
/** Fetches in flight by /healthz; -1 when it does not answer within 10 s (the service is past its limit). */
const inFlight = async (): Promise<number> => {
  try {
    const res = await fetch(`${service.origin}/healthz`, { signal: AbortSignal.timeout(10_000) });
    return ((await res.json()) as { upstream_fetches: { in_flight: number } }).upstream_fetches.in_flight;
  } catch {
    return -1;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

await sleep(1000);
const idle = { rssMb: memoryOf(service.pid).rssMb, fds: fds() };
const rows: string[] = [];
let held: http.ClientRequest[] = [];
try {
  for (const n of steps) {
    for (let i = held.length; i < n; i++) {
      const page = `${pagesOrigin}/page/${i}`;
      const req = http.get(`${service.origin}/v1/metadata?url=${encodeURIComponent(page)}`, { agent: false });
      req.on('error', () => {});
      held.push(req);
      if (i % 200 === 199) await sleep(50); // let the service accept them in batches
    }
    const started = performance.now();
    while ((await inFlight()) < n && performance.now() - started < 60_000) await sleep(200);
    const reached = await inFlight();
    if (reached <= 0) {
      const row = `| ${n} asked | /healthz did not answer within 10 s | | ${fds()} | |`;
      console.log(row);
      rows.push(row);
      break;
    }
    await sleep(2000); // the first head bytes scanned, buffers settled
    const { rssMb } = memoryOf(service.pid);
    const open = fds();
    const perFetchKb = ((rssMb - idle.rssMb) * 1024) / reached;
    const perFetchFds = (open - idle.fds) / reached;
    const row = `| ${reached} | ${rssMb.toFixed(0)} | ${perFetchKb.toFixed(1)} | ${open} | ${perFetchFds.toFixed(2)} |`;
    console.log(row);
    rows.push(row);
  }
} finally {
  for (const req of held) req.destroy();
  held = [];
  await service.stop();
  pages.closeAllConnections();
  pages.close();
}

const report = [
  '# Fetch slots: memory and descriptors per held fetch',
  '',
  `\`npm run bench:slots\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores).`,
  `Idle service: ${idle.rssMb.toFixed(0)} MB RSS, ${idle.fds} descriptors. Each fetch streams a page that sent 4 KiB of`,
  '`<head>` and drips a byte every 5 s; each comes from its own client connection.',
  '',
  '| fetches held | service RSS (MB) | KB per fetch | descriptors | descriptors per fetch |',
  '| ---: | ---: | ---: | ---: | ---: |',
  ...rows,
  '',
];
const previous = existsSync(args.out!) ? readFileSync(args.out!, 'utf8') : '';
const decision = previous.includes(DECISION_HEADING) ? previous.slice(previous.indexOf(DECISION_HEADING)) : '';
writeFileSync(args.out!, report.join('\n') + decision);
console.log(`written to ${path.relative(REPO_ROOT, args.out!)}`);
