// npm run bench:proxy — the image proxy beside the same image served directly.
//
// Three processes: the upstream (a plain HTTP/1.1 server holding a 5 MB PNG in memory), the
// proxy (this process: the real app from src/app.ts with proxyImage mounted), and the load
// generator (undici, keep-alive, fixed concurrency). Direct and proxied rounds alternate in the
// same run so that both see the same machine; the ratios are what to read.
//
// A third column, "bare pipe", is the cheapest proxy Node can be: the same undici Agent, its body
// piped into the response, no checks, no Koa, in this same process. proxy/direct is the issue's
// target; proxy/bare pipe is the share of the cost that is ours rather than the extra hop's (on a
// small machine the hop alone doubles the bytes copied through loopback).
//
//   throughput  MB/s over all bytes of a round (5 MB images at concurrency 20)
//   TTFB        request sent → first body byte, median and p95
//   RSS         of the proxy process, sampled every 100 ms over 1,000 proxied 5 MB images at
//               concurrency 20: flat means the images are streamed, not buffered
//
// Target: proxied throughput ≥ 70% of direct. Options: --rounds N (3), --requests N
// (200 per round), --concurrency N (20), --rss-images N (1000).

import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { Agent } from 'undici';
import { LOCAL_DNS_SERVERS } from '../test/helpers/local-dns.js';

const IMAGE_BYTES = 5 * 1000 * 1000;
const self = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '20' },
    'rss-images': { type: 'string', default: '1000' },
  },
});

interface LoadRequest {
  url: string;
  requests: number;
  concurrency: number;
}

interface LoadResult {
  bytes: number;
  ms: number;
  ttfb: number[];
  failures: number;
}

// ---- Upstream process: a 5 MB PNG at /image.png -----------------------------------------------

function upstream(): void {
  const image = Buffer.alloc(IMAGE_BYTES, 0x42);
  // A real PNG signature and IHDR chunk: the proxy decides by these bytes.
  Buffer.from('89504e470d0a1a0a0000000d49484452000007800000043808060000005b9e5ee4', 'hex').copy(image);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length });
    res.end(image);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

// ---- Load generator process -------------------------------------------------------------------

async function load(job: LoadRequest): Promise<LoadResult> {
  // A response that stops mid-image counts as failed after 30 s of silence, rather than holding
  // its worker, and so the whole benchmark, for ever.
  const agent = new Agent({ connections: job.concurrency, keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  let next = 0;
  let bytes = 0;
  let failures = 0;
  const ttfb: number[] = [];
  const started = performance.now();
  async function worker(): Promise<void> {
    while (next < job.requests) {
      next++;
      const sent = performance.now();
      try {
        const res = await agent.request({ origin: new URL(job.url).origin, path: new URL(job.url).pathname + new URL(job.url).search, method: 'GET' });
        let first = true;
        let got = 0;
        for await (const chunk of res.body) {
          if (first) {
            ttfb.push(performance.now() - sent);
            first = false;
          }
          got += (chunk as Buffer).length;
        }
        if (res.statusCode !== 200 || got !== IMAGE_BYTES) failures++;
        bytes += got;
      } catch {
        failures++;
      }
    }
  }
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  const ms = performance.now() - started;
  await agent.close();
  return { bytes, ms, ttfb, failures };
}

// ---- Orchestrator (and the proxy) -------------------------------------------------------------

function child(role: string): ChildProcess {
  return fork(self, ['--role', role], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function once<T>(proc: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`child exited with ${code}`));
    proc.once('message', (m) => {
      proc.off('exit', onExit);
      resolve(m as T);
    });
    proc.once('exit', onExit);
  });
}

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
const mbps = (r: LoadResult) => r.bytes / 1e6 / (r.ms / 1000);
const mib = (n: number) => (n / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const rounds = Number(args.rounds);
  const requests = Number(args.requests);
  const concurrency = Number(args.concurrency);
  const rssImages = Number(args['rss-images']);

  const up = child('upstream');
  const { port } = await once<{ port: number }>(up);
  const imageUrl = `http://127.0.0.1:${port}/image.png`;

  // The real app, with the proxy mounted as the lead's createApp expects (deps.proxy).
  const { loadConfig } = await import('../src/config.js');
  const { createApp } = await import('../src/app.js');
  const { createSafeFetch } = await import('../src/fetch/fetcher.js');
  const { createImageProxy } = await import('../src/proxy/proxy.js');
  // One client and one upstream stand for many: no fair shares of fetch slots.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_MAX: '0',
    MAX_FETCHES_PER_CLIENT: '0',
    MAX_FETCHES_PER_HOST: '0',
    DNS_SERVERS: LOCAL_DNS_SERVERS,
  });
  const fetcher = createSafeFetch(config);
  const app = await createApp(config, {
    logger: pino({ level: 'silent' }),
    proxy: createImageProxy({ safeFetch: fetcher.safeFetch, config }),
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/cors-proxy?url=${encodeURIComponent(imageUrl)}`;

  // The reference: the cheapest possible proxy of the same image (see the header comment).
  const bareAgent = new Agent({ keepAliveTimeout: 60_000 });
  const bare = http.createServer((_req, res) => {
    bareAgent
      .request({ origin: `http://127.0.0.1:${port}`, path: '/image.png', method: 'GET' })
      .then((up) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': up.headers['content-length'] as string });
        up.body.pipe(res);
      })
      .catch(() => res.destroy());
  });
  bare.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/image.png`;

  const loader = child('load');
  await once(loader); // ready
  // CPU time of this process (the proxy, or the bare pipe) during a run, per GB moved: the cost
  // of proxying independent of how many cores the machine has.
  const run = async (url: string, n: number): Promise<LoadResult & { cpuMs: number }> => {
    const done = once<LoadResult>(loader);
    const cpu = process.cpuUsage();
    loader.send({ url, requests: n, concurrency } satisfies LoadRequest);
    const result = await done;
    const used = process.cpuUsage(cpu);
    return { ...result, cpuMs: (used.user + used.system) / 1000 };
  };

  console.log(`bench:proxy — ${IMAGE_BYTES / 1e6} MB image, concurrency ${concurrency}, ${rounds} rounds × ${requests} requests each way`);
  await run(imageUrl, concurrency * 2); // warm-up: connections, JIT
  await run(proxyUrl, concurrency * 2);
  await run(bareUrl, concurrency * 2);

  type Run = LoadResult & { cpuMs: number };
  const direct: Run[] = [];
  const proxied: Run[] = [];
  const piped: Run[] = [];
  for (let i = 0; i < rounds; i++) {
    direct.push(await run(imageUrl, requests));
    proxied.push(await run(proxyUrl, requests));
    piped.push(await run(bareUrl, requests));
    const [d, p, b] = [direct.at(-1)!, proxied.at(-1)!, piped.at(-1)!];
    console.log(
      `  round ${i + 1}: direct ${mbps(d).toFixed(0)} MB/s, proxy ${mbps(p).toFixed(0)} MB/s (${((mbps(p) / mbps(d)) * 100).toFixed(0)}%), ` +
        `bare pipe ${mbps(b).toFixed(0)} MB/s`,
    );
  }
  const directMBps = median(direct.map(mbps));
  const proxyMBps = median(proxied.map(mbps));
  const bareMBps = median(piped.map(mbps));
  const directTtfb = direct.flatMap((r) => r.ttfb);
  const proxyTtfb = proxied.flatMap((r) => r.ttfb);
  const bareTtfb = piped.flatMap((r) => r.ttfb);
  const failures = [...direct, ...proxied, ...piped].reduce((n, r) => n + r.failures, 0);

  // RSS over 1,000 proxied images, sampled in this (the proxy's) process.
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 100);
  const rssBefore = process.memoryUsage().rss;
  const rssRun = await run(proxyUrl, rssImages);
  clearInterval(sampler);
  const rssAfter = process.memoryUsage().rss;
  const firstTenth = samples.slice(0, Math.max(1, Math.floor(samples.length / 10)));
  const lastTenth = samples.slice(-Math.max(1, Math.floor(samples.length / 10)));

  console.log('');
  const row = (label: string, d: number, p: number, b: number, digits: number) =>
    console.log(
      `  ${label.padEnd(18)} ${d.toFixed(digits).padStart(8)} ${p.toFixed(digits).padStart(9)} ${b.toFixed(digits).padStart(10)}` +
        `   ${(p / d).toFixed(2).padStart(5)}×        ${(p / b).toFixed(2).padStart(5)}×`,
    );
  console.log('');
  console.log(`  ${''.padEnd(18)} ${'direct'.padStart(8)} ${'proxy'.padStart(9)} ${'bare pipe'.padStart(10)}   proxy/direct  proxy/bare`);
  row('throughput (MB/s)', directMBps, proxyMBps, bareMBps, 0);
  row('TTFB median (ms)', median(directTtfb), median(proxyTtfb), median(bareTtfb), 1);
  row('TTFB p95 (ms)', quantile(directTtfb, 0.95), quantile(proxyTtfb, 0.95), quantile(bareTtfb, 0.95), 1);
  const cpuPerGB = (runs: Run[]) => runs.reduce((n, r) => n + r.cpuMs, 0) / (runs.reduce((n, r) => n + r.bytes, 0) / 1e9);
  console.log(
    `  CPU of the proxying process per GB: proxy ${(cpuPerGB(proxied) / 1000).toFixed(2)} s, bare pipe ${(cpuPerGB(piped) / 1000).toFixed(2)} s ` +
      `(${(cpuPerGB(proxied) / cpuPerGB(piped)).toFixed(2)}×); machine: ${os.cpus().length} CPUs shared by upstream, proxy and load generator`,
  );
  console.log(
    `  target: proxy throughput ≥ 0.70× direct → ${proxyMBps / directMBps >= 0.7 ? 'met' : 'NOT met'} (${((proxyMBps / directMBps) * 100).toFixed(0)}%)`,
  );
  console.log('');
  console.log(
    `  RSS over ${rssImages} proxied images (${mib(rssRun.bytes)} MiB, ${mbps(rssRun).toFixed(0)} MB/s, ${rssRun.failures} failures): ` +
      `before ${mib(rssBefore)} MiB, first tenth median ${mib(median(firstTenth))} MiB, last tenth median ${mib(median(lastTenth))} MiB, ` +
      `max ${mib(Math.max(...samples))} MiB, after ${mib(rssAfter)} MiB`,
  );
  console.log(`  failed requests during the throughput rounds: ${failures}`);

  loader.kill();
  up.kill();
  server.closeAllConnections();
  server.close();
  bare.closeAllConnections();
  bare.close();
  await bareAgent.close();
  await app.close();
  await fetcher.close();
}

if (args.role === 'upstream') upstream();
else if (args.role === 'load') {
  process.on('message', (job) => {
    void load(job as LoadRequest).then((result) => process.send!(result));
  });
  process.send!({ ready: true });
} else {
  await main();
}
