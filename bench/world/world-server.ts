// The benchmark world, in its own process: the nameserver, a test CA, and every host of the plan
// (plan.ts) on its own loopback address, on ports 80 and 443 like the real sites (so the absolute
// image URLs in the corpus pages work as written). Binding those ports needs root: the benchmark
// runs alone on the machine; tests never do this (they use test/world/ with port 0).
//
//   node --import tsx bench/world/world-server.ts     → "LISTENING <port>" on stderr
//   GET /plan                 → { plan, dns: "127.0.0.1:PORT", caFile }
//   GET /queries?name=a&name=b → { a: n, b: n }  (A and AAAA queries the nameserver received)
//
// Network: a name's answer costs its host's latency (an uncached name is one round trip to its
// authoritative server); pages are sent in TCP slow-start rounds (10 segments, doubling every round
// trip), so where <body> falls in a page decides how long the head takes to arrive, as it does on
// the internet. Every address is in 127.0.0.0/8; the world knows no other.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorldDns } from '../../test/world/dns-server.js';
import { startHost, type HostResponse, type WorldHost } from '../../test/world/hosts.js';
import { imageFor } from '../../test/world/images.js';
import { createTestCa } from '../../test/world/tls.js';
import { readPage } from '../lib/corpus.js';
import { pageKey, planWorld, syntheticHtml, type HostPlan, type PagePlan } from './plan.js';

/** A new connection's first flight (RFC 6928: 10 segments of 1460 bytes). */
const INITIAL_WINDOW = 14_600;
/** Name TTL, seconds: a typical site's. */
const TTL = 300;
/** Certificates made at once (each is an openssl run). */
const CERT_PARALLEL = 8;

if (process.getuid?.() !== 0) {
  process.stderr.write('bench/world/world-server.ts binds ports 80 and 443 on 127.0.x.y: run the benchmark as root, alone on the machine\n');
  process.exit(2);
}

// The control endpoint listens first (the world takes a while to build under load); it answers
// once everything is up.
let ready: () => void;
const isReady = new Promise<void>((resolve) => (ready = resolve));
const control = http.createServer((req, res) => {
  void isReady.then(() => {
    const url = new URL(req.url ?? '/', 'http://control');
    const body =
      url.pathname === '/plan'
        ? { plan, dns: dns.server, caFile: ca.caFile }
        : url.pathname === '/queries'
          ? Object.fromEntries(url.searchParams.getAll('name').map((name) => [name, dns.queries(name)]))
          : url.pathname === '/hosts'
            ? Object.fromEntries(hosts.map((h) => [h.name, { connections: h.connections, requests: h.requests }]))
            : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
});
control.listen(0, '127.0.0.1', () => process.stderr.write(`LISTENING ${(control.address() as AddressInfo).port}\n`));

const started = performance.now();
const plan = await planWorld();
const pages = new Map<string, { page: PagePlan; bytes: Buffer }>();
for (const page of plan.pages) pages.set(pageKey(new URL(page.url)), { page, bytes: readPage(page.file) });
for (const page of [...plan.special.imageHang, ...plan.special.cache]) pages.set(pageKey(new URL(page.url)), { page, bytes: Buffer.from(syntheticHtml(page)) });

const dns = await startWorldDns();
for (const host of plan.hosts) dns.set(host.name, { A: [host.address], ttl: TTL, delayMs: host.latencyMs });
for (const name of plan.silentNames) dns.set(name, { silent: true });

const ca = await createTestCa();
const tlsOf = new Map<string, { key: string; cert: string }>();
const needTls = plan.hosts.filter((h) => h.listeners.some((l) => l.protocol !== 'http'));
for (let i = 0; i < needTls.length; i += CERT_PARALLEL) {
  await Promise.all(needTls.slice(i, i + CERT_PARALLEL).map(async (h) => tlsOf.set(h.name, await ca.issue([h.name]))));
}

const hosts: WorldHost[] = await Promise.all(plan.hosts.map((host) => serve(host)));
ready!();
process.stderr.write(`world: ${hosts.length} hosts, ${tlsOf.size} certificates, ready in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

process.on('SIGTERM', () => {
  void Promise.all([...hosts.map((h) => h.close()), dns.close(), ca.remove()]).finally(() => process.exit(0));
});

function serve(host: HostPlan): Promise<WorldHost> {
  return startHost({
    name: host.name,
    address: host.address,
    latencyMs: host.latencyMs,
    listeners: host.listeners,
    tls: tlsOf.get(host.name),
    handle: async (req, res) => {
      const url = new URL(req.url ?? '/', `https://${host.name}`);
      const found = pages.get(pageKey(url));
      if (found) {
        res.writeHead(200, { 'content-type': found.page.contentType, 'content-length': found.bytes.length });
        await sendInRounds(res, found.bytes, host.latencyMs);
        return;
      }
      const image = imageFor(url.pathname);
      res.writeHead(200, { 'content-type': image.contentType, 'content-length': image.bytes.length, 'cache-control': 'public, max-age=86400' });
      res.end(image.bytes);
    },
  });
}

/** TCP slow start: a first window, then twice as much every round trip, until the page is sent. */
async function sendInRounds(res: HostResponse, bytes: Buffer, latencyMs: number): Promise<void> {
  let offset = 0;
  let window = INITIAL_WINDOW;
  let closed = false;
  res.once('close', () => (closed = true));
  while (!closed) {
    const end = Math.min(bytes.length, offset + window);
    if (end === bytes.length) {
      res.end(bytes.subarray(offset));
      return;
    }
    (res as http.ServerResponse).write(bytes.subarray(offset, end));
    offset = end;
    window *= 2;
    await sleep(latencyMs);
  }
}
