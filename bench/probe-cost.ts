// tsx bench/probe-cost.ts — what the image and favicon probes add to an uncached
// /v1/metadata answer, reported apart from the end-to-end benchmark.
//
// Two processes: the upstream (a child: pages, each naming an og:image, a twitter:image and an
// icon, and those images), and this one, which runs two apps from src/app.ts side by side — one
// with imageEnricher (PROBE_IMAGES=true), one with it off (PROBE_IMAGES=false, the
// imageEnricher's no-op) — and asks both for pages they have never seen, alternating rounds so
// both see the same machine. The images are local, so the numbers are LinkPeek's own cost (three
// extra fetches, header parsing, sniffing); against real image hosts add the slowest image host's
// round trip (the probes run in parallel), bounded by ENRICH_BUDGET_MS. --delay-ms emulates that.
//
//   latency     one request at a time: median and p95 per configuration, and on − off
//   pages/s     --concurrency (16) requests in flight
//   CPU         of this process (both apps and the client) per page, user + system
//   image bytes the upstream handed to its sockets per page (Range honoured; --ignore-range to see
//               the capped stream instead). On loopback a server hands over a whole 128 KiB range
//               before the probe's close arrives; across a WAN, TCP slow start keeps what is in
//               flight at the close near the initial window (~14 KB), so read it as an upper bound.
//
// Options: --rounds N (3), --requests N (100 sequential per round), --concurrency N (16),
// --delay-ms N (0: delay before each image's headers), --ignore-range.

import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { Agent } from 'undici';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createSafeFetch } from '../src/fetch/fetcher.js';
import { imageEnricher } from '../src/metadata/enrich-images.js';
import { LOCAL_DNS_SERVERS } from '../test/helpers/local-dns.js';

const self = fileURLToPath(import.meta.url);
const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '16' },
    'delay-ms': { type: 'string', default: '0' },
    'ignore-range': { type: 'boolean', default: false },
  },
});

// ---- Upstream process ---------------------------------------------------------------------------

/** A baseline JPEG header of w×h behind a 20 KB EXIF segment (a typical camera thumbnail), padded to `size`. */
function jpeg(w: number, h: number, size: number): Buffer {
  const exif = Buffer.alloc(4 + 20_000, 0x20);
  exif.set([0xff, 0xe1], 0);
  exif.writeUInt16BE(20_002, 2);
  exif.write('Exif\0\0', 4, 'latin1');
  const sof = Buffer.from('ffc0001108000000000301220002110103110100', 'hex');
  sof.writeUInt16BE(h, 5);
  sof.writeUInt16BE(w, 7);
  const head = Buffer.concat([Buffer.from([0xff, 0xd8]), exif, sof]);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 0x55)]);
}

/** A PNG signature and IHDR of w×h, padded to `size` (the probe reads only the header). */
function png(w: number, h: number, size: number): Buffer {
  const head = Buffer.from('89504e470d0a1a0a0000000d4948445200000000000000000806000000000000', 'hex');
  head.writeUInt32BE(w, 16);
  head.writeUInt32BE(h, 20);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 0x42)]);
}

function upstream(): void {
  const delayMs = Number(args['delay-ms']);
  const ignoreRange = args['ignore-range'];
  const images: Record<string, { bytes: Buffer; type: string }> = {
    '/img/og.jpg': { bytes: jpeg(1200, 630, 300_000), type: 'image/jpeg' },
    '/img/tw.png': { bytes: png(800, 418, 120_000), type: 'image/png' },
    '/icon.png': { bytes: png(32, 32, 2_000), type: 'image/png' },
  };
  let imageBytes = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/stats') {
      res.end(JSON.stringify({ imageBytes }));
      return;
    }
    if (url.pathname.startsWith('/page/')) {
      const n = url.pathname.slice('/page/'.length);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>Page ${n}</title>` +
          `<meta property="og:title" content="Page ${n}"><meta property="og:image" content="/img/og.jpg?p=${n}">` +
          `<meta name="twitter:image" content="/img/tw.png?p=${n}"><link rel="icon" href="/icon.png?p=${n}">` +
          `</head><body>${'<p>text</p>'.repeat(200)}</body></html>`,
      );
      return;
    }
    const image = images[url.pathname];
    if (!image) {
      res.writeHead(404).end();
      return;
    }
    setTimeout(() => {
      const range = ignoreRange ? null : /^bytes=0-(\d+)$/.exec(String(req.headers.range ?? ''));
      const body = range ? image.bytes.subarray(0, Number(range[1]) + 1) : image.bytes;
      const headers: http.OutgoingHttpHeaders = { 'content-type': image.type, 'content-length': body.length, 'access-control-allow-origin': '*' };
      if (range) headers['content-range'] = `bytes 0-${body.length - 1}/${image.bytes.length}`;
      res.writeHead(range ? 206 : 200, headers);
      // Count what the socket accepted: a probe that closes early stops the rest.
      let offset = 0;
      const pump = (): void => {
        while (offset < body.length && !res.destroyed) {
          const piece = body.subarray(offset, offset + 16 * 1024);
          offset += piece.length;
          imageBytes += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    }, delayMs);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

// ---- This process: two apps and the client -------------------------------------------------------

async function startLinkPeek(probeImages: boolean): Promise<{ origin: string; close(): Promise<void> }> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_MAX: '0',
    // One client and one upstream stand for many: no fair shares of fetch slots.
    MAX_FETCHES_PER_CLIENT: '0',
    MAX_FETCHES_PER_HOST: '0',
    PROBE_IMAGES: String(probeImages),
    DNS_SERVERS: LOCAL_DNS_SERVERS,
  });
  // The wiring the lead puts in src/app.ts: imageEnricher on the app's own safeFetch.
  const fetcher = createSafeFetch(config);
  const app = await createApp(config, {
    logger: pino({ level: 'silent' }),
    enrichers: [imageEnricher({ safeFetch: fetcher.safeFetch, config })],
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await fetcher.close();
    },
  };
}

interface Round {
  latencies: number[];
  pagesPerSecond: number;
  cpuMsPerPage: number;
  imageBytesPerPage: number;
  failures: number;
}

async function round(service: string, upstreamOrigin: string, tag: string, requests: number, concurrency: number): Promise<Round> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });
  let failures = 0;
  const ask = async (n: string): Promise<number> => {
    const page = `${upstreamOrigin}/page/${tag}-${n}`;
    const sent = performance.now();
    const res = await agent.request({ origin: service, path: `/v1/metadata?url=${encodeURIComponent(page)}`, method: 'GET' });
    const body = await res.body.text();
    if (res.statusCode !== 200 || !body.includes(`Page ${tag}-${n}`)) failures++;
    return performance.now() - sent;
  };
  const bytesBefore = await imageBytes(upstreamOrigin);
  const cpuBefore = process.cpuUsage();
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) latencies.push(await ask(`s${i}`));
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < requests) await ask(`c${next++}`);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const bytes = (await imageBytes(upstreamOrigin)) - bytesBefore;
  await agent.close();
  return {
    latencies,
    pagesPerSecond: requests / seconds,
    cpuMsPerPage: (cpu.user + cpu.system) / 1000 / (2 * requests),
    imageBytesPerPage: bytes / (2 * requests),
    failures,
  };
}

async function imageBytes(origin: string): Promise<number> {
  const res = await fetch(`${origin}/stats`);
  return ((await res.json()) as { imageBytes: number }).imageBytes;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

async function main(): Promise<void> {
  const rounds = Number(args.rounds);
  const requests = Number(args.requests);
  const concurrency = Number(args.concurrency);
  const childArgs = ['--role', 'upstream', '--delay-ms', String(args['delay-ms']), ...(args['ignore-range'] ? ['--ignore-range'] : [])];
  const up: ChildProcess = fork(self, childArgs, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise<{ port: number }>((resolve) => up.once('message', (m) => resolve(m as { port: number })));
  const upstreamOrigin = `http://127.0.0.1:${port}`;
  const on = await startLinkPeek(true);
  const off = await startLinkPeek(false);
  const results: Record<'off' | 'on', Round[]> = { off: [], on: [] };
  try {
    // Warm-up (JIT, connection pools), not counted.
    await round(off.origin, upstreamOrigin, 'warm-off', 20, 4);
    await round(on.origin, upstreamOrigin, 'warm-on', 20, 4);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const which of order) {
        const service = which === 'on' ? on : off;
        results[which].push(await round(service.origin, upstreamOrigin, `${which}${r}`, requests, concurrency));
      }
    }
  } finally {
    await on.close();
    await off.close();
    up.kill();
  }

  const summary = (which: 'off' | 'on') => {
    const all = results[which];
    const latencies = all.flatMap((x) => x.latencies);
    const mean = (f: (x: Round) => number) => all.reduce((s, x) => s + f(x), 0) / all.length;
    return {
      p50: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      pagesPerSecond: mean((x) => x.pagesPerSecond),
      cpuMs: mean((x) => x.cpuMsPerPage),
      imageKB: mean((x) => x.imageBytesPerPage) / 1000,
      failures: all.reduce((s, x) => s + x.failures, 0),
    };
  };
  const a = summary('off');
  const b = summary('on');
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(
    `probe cost: ${rounds} rounds × ${requests} uncached pages (3 images each, local, delay ${args['delay-ms']} ms, Range ${args['ignore-range'] ? 'ignored' : 'honoured'})`,
  );
  console.log('config             p50 ms  p95 ms  pages/s(c=' + concurrency + ')  CPU ms/page  image KB/page  failures');
  for (const [name, s] of [
    ['PROBE_IMAGES=false', a],
    ['PROBE_IMAGES=true ', b],
  ] as const) {
    console.log(
      `${name}  ${f(s.p50, 2).padStart(6)}  ${f(s.p95, 2).padStart(6)}  ${f(s.pagesPerSecond).padStart(14)}  ${f(s.cpuMs, 2).padStart(11)}  ${f(s.imageKB).padStart(13)}  ${s.failures}`,
    );
  }
  console.log(
    `added by probes: p50 +${f(b.p50 - a.p50, 2)} ms, p95 +${f(b.p95 - a.p95, 2)} ms, CPU +${f(b.cpuMs - a.cpuMs, 2)} ms/page, throughput ×${f(b.pagesPerSecond / a.pagesPerSecond, 2)}`,
  );
}

if (args.role === 'upstream') upstream();
else await main();
