// tsx bench/dns-prefetch.ts — does resolving image and icon hosts while the head downloads
// (prefetch, src/metadata/service.ts prefetchHost) shorten an uncached /v1/metadata answer?
//
// One process: the world's nameserver (test/world/dns-server.ts) answering every image host after
// --dns-ms, a page server that sends the first 10 KB of a head (holding the og:image tag) and the
// rest --gap-ms later (a round trip of TCP slow start: on the corpus, 204 of the 334 pages with an
// image or icon tag in their head have their <body> at least one round trip of a 10-segment initial
// window after that tag), and two apps side by side, prefetch on and off. Every request asks for a
// page never seen before whose image is on a host never asked before. Rounds alternate so both
// configurations see the same machine. Prints the median and p90 per configuration.
//
// Options: --rounds N (3), --requests N (30 per round and configuration), --dns-ms N (50), --gap-ms N (40).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startWorldDns } from '../test/world/dns-server.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '30' },
    'dns-ms': { type: 'string', default: '50' },
    'gap-ms': { type: 'string', default: '40' },
  },
});
const rounds = Number(args.rounds);
const requests = Number(args.requests);
const dnsMs = Number(args['dns-ms']);
const gapMs = Number(args['gap-ms']);

const dns = await startWorldDns();
const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const pages = http.createServer((req, res) => {
  if (req.url?.startsWith('/img')) {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(png);
    return;
  }
  const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.write(`<html><head><meta property="og:image" content="http://img-${n}.world.test:${port}/img.png"><!--${'x'.repeat(10_000)}-->`);
  setTimeout(() => res.end('<title>Page</title><link rel="icon" href="/img.ico"></head><body></body></html>'), gapMs);
});
await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
const port = (pages.address() as AddressInfo).port;
dns.set('site.world.test', { A: ['127.0.0.1'] });

const env = { LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_MAX: '0', DNS_SERVERS: dns.server };
const config = loadConfig(env);
const apps: Record<'on' | 'off', App> = {
  on: await createApp(config, { logger: pino({ level: 'silent' }) }),
  off: await createApp(config, { logger: pino({ level: 'silent' }), prefetchImageHosts: false }),
};
const servers = await Promise.all(
  Object.values(apps).map(async (app) => {
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }),
);
const base = { on: servers[0]!.address() as AddressInfo, off: servers[1]!.address() as AddressInfo };

let counter = 0;
async function once(which: 'on' | 'off'): Promise<number> {
  const n = counter++;
  dns.set(`img-${n}.world.test`, { A: ['127.0.0.1'], delayMs: dnsMs });
  const target = `http://site.world.test:${port}/page?n=${n}`;
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${base[which].port}/v1/metadata?url=${encodeURIComponent(target)}`);
  const body = (await res.json()) as { image?: { width?: number | null } };
  if (res.status !== 200 || body.image?.width !== 1) throw new Error(`unexpected answer ${res.status} ${JSON.stringify(body)}`);
  return performance.now() - started;
}

const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
for (const which of ['on', 'off'] as const) for (let i = 0; i < 5; i++) await once(which); // warm-up
for (let r = 0; r < rounds; r++) {
  for (const which of r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
    for (let i = 0; i < requests; i++) times[which].push(await once(which));
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
console.log(`DNS answer after ${dnsMs} ms, rest of the head ${gapMs} ms after the image tag; ${rounds}×${requests} requests each`);
for (const which of ['on', 'off'] as const) {
  console.log(`prefetch ${which.padEnd(3)}  p50 ${pct(times[which], 0.5).toFixed(1)} ms  p90 ${pct(times[which], 0.9).toFixed(1)} ms`);
}
console.log(`saved at p50: ${(pct(times.off, 0.5) - pct(times.on, 0.5)).toFixed(1)} ms`);

for (const server of servers) server.close();
pages.close();
await Promise.all(Object.values(apps).map((app) => app.close()));
await dns.close();
