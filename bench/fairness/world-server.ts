// The fairness world, in its own process: the world's nameserver (test/world/dns-server.ts), a
// test CA and the bystander's ordinary sites, on 127.0.60.x–61.x (free of bench/world's
// 127.0.1.x–3.x) on ports the system picks, so it needs no root. The attackers' servers, other
// machines than the bystander's sites, run in a process of their own (attacker-servers.ts); this
// nameserver answers for their zones.
//
//   node --import tsx bench/fairness/world-server.ts   → "LISTENING <port>" on stderr
//   GET /plan → { dns, caFile, sites: [{ origin, cdnOrigin }] }
//
// Ordinary sites: h2 over TLS, 20–60 ms away, names answered after one round trip (names.ts).
// Attackers' zones are wildcards: `*.ordinary-aK`, `*.drip-aK`, `*.assets-aK` and `*.heavy-aK` lead to the server
// of that kind, `*.images-aK` to the image host of bench/fairness/byte-attacks.ts, `*.nodns-aK` and `*.hang-aK` never answer.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorldDns } from '../../test/world/dns-server.js';
import { startHost, type WorldHost } from '../../test/world/hosts.js';
import { imageFor } from '../../test/world/images.js';
import { createTestCa } from '../../test/world/tls.js';
import { ATTACKER_ADDRESS as SERVERS, ATTACK_CLASSES, MAX_ATTACKERS, SITES, attackZone, cdnName, hangZone, siteName } from './names.js';
import { IMAGE_HOST_ADDRESS } from './byte-attacks.js';
import { articleHtml } from './pages.js';

const TTL = 300;
const ATTACKER_ADDRESS = { ...SERVERS, images: IMAGE_HOST_ADDRESS } as const;

let ready: () => void;
const isReady = new Promise<void>((resolve) => (ready = resolve));
let plan: unknown = null;
const control = http.createServer((req, res) => {
  void isReady.then(() => {
    res.writeHead(req.url === '/plan' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/plan' ? plan : null));
  });
});
control.listen(0, '127.0.0.1', () => process.stderr.write(`LISTENING ${(control.address() as AddressInfo).port}\n`));

const dns = await startWorldDns();
const ca = await createTestCa();
const hosts: WorldHost[] = [];
const sites: { origin: string; cdnOrigin: string }[] = [];
for (let i = 0; i < SITES; i++) {
  const latencyMs = 20 + ((i * 13) % 41);
  const cdn = await startHost({
    name: cdnName(i),
    address: `127.0.61.${i + 1}`,
    latencyMs,
    listeners: [{ port: 0, protocol: 'h2' }],
    tls: await ca.issue([cdnName(i)]),
    handle: (req, res) => {
      const image = imageFor(new URL(req.url ?? '/', 'https://cdn').pathname);
      res.writeHead(200, { 'content-type': image.contentType, 'content-length': image.bytes.length, 'cache-control': 'public, max-age=86400' });
      res.end(image.bytes);
    },
  });
  const site = await startHost({
    name: siteName(i),
    address: `127.0.60.${i + 1}`,
    latencyMs,
    listeners: [{ port: 0, protocol: 'h2' }],
    tls: await ca.issue([siteName(i)]),
    handle: (req, res) => {
      const body = Buffer.from(articleHtml(siteName(i), cdn.url('').origin, new URL(req.url ?? '/', 'https://site').pathname));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
      res.end(body);
    },
  });
  for (const host of [cdn, site]) dns.set(host.name, { A: [host.address], ttl: TTL, delayMs: latencyMs });
  hosts.push(cdn, site);
  sites.push({ origin: site.url('').origin, cdnOrigin: cdn.url('').origin });
}

for (let k = 0; k < MAX_ATTACKERS; k++) {
  for (const attack of ATTACK_CLASSES) {
    const zone = `*.${attackZone(attack, k)}`;
    if (attack === 'nodns') dns.set(zone, { silent: true });
    else if (attack in ATTACKER_ADDRESS) dns.set(zone, { A: [ATTACKER_ADDRESS[attack as keyof typeof ATTACKER_ADDRESS]], ttl: TTL });
  }
  dns.set(`*.${hangZone(k)}`, { silent: true });
}

plan = { dns: dns.server, caFile: ca.caFile, sites };
ready!();

process.on('SIGTERM', () => {
  void Promise.all([...hosts.map((h) => h.close()), dns.close(), ca.remove()]).finally(() => process.exit(0));
});
