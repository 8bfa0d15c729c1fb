// The fairness world, in its own process: the world's nameserver (test/world/dns-server.ts), a
// test CA, the bystander's ordinary sites and the attackers' servers, all on 127.0.60.x–62.x
// (free of bench/world's 127.0.1.x–3.x) on ports the system picks, so it needs no root.
//
//   node --import tsx bench/fairness/world-server.ts   → "LISTENING <port>" on stderr
//   GET /plan → { dns, caFile, sites: [{ origin, cdnOrigin }], attackPorts: { ordinary, drip, assets, heavy } }
//
// Ordinary sites: h2 over TLS, 20–60 ms away, names answered after one round trip (names.ts).
// Attackers: plain HTTP at no distance (an attacker makes its own pages as fast as it can), any
// Host; their zones are wildcards: `*.ordinary-aK`, `*.drip-aK`, `*.assets-aK` and `*.heavy-aK` lead to the server
// of that kind, `*.nodns-aK` and `*.hang-aK` never answer.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorldDns } from '../../test/world/dns-server.js';
import { startHost, type WorldHost } from '../../test/world/hosts.js';
import { imageFor } from '../../test/world/images.js';
import { createTestCa } from '../../test/world/tls.js';
import { ATTACK_CLASSES, MAX_ATTACKERS, SITES, attackZone, cdnName, hangZone, siteName } from './names.js';
import { IMAGE_HOST_ADDRESS } from './byte-attacks.js';
import { articleHtml, drip, hangingAssetsHtml, heavy } from './pages.js';

const TTL = 300;
const ATTACKER_ADDRESS = { drip: '127.0.62.1', assets: '127.0.62.2', heavy: '127.0.62.3', ordinary: '127.0.62.4', images: IMAGE_HOST_ADDRESS } as const;

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

const attackers = {
  // The control: ordinary articles (their image and icon on an ordinary site's CDN), fast.
  ordinary: await listen(ATTACKER_ADDRESS.ordinary, (req, res) => {
    const host = (req.headers.host ?? 'x.ordinary-a0').split(':')[0]!;
    const body = Buffer.from(articleHtml(host, sites[host.length % sites.length]!.cdnOrigin, new URL(req.url ?? '/', 'http://x').pathname));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
  }),
  drip: await listen(ATTACKER_ADDRESS.drip, (_req, res) => drip(res)),
  assets: await listen(ATTACKER_ADDRESS.assets, (req, res) => {
    // The Host is <token>.assets-aK[:port]: its hanging names go under attacker K's own hang zone.
    const [token, zone] = (req.headers.host ?? 'x.assets-a0').split(':')[0]!.split('.');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hangingAssetsHtml(token!, hangZone(Number(/-a(\d+)$/.exec(zone ?? '')?.[1] ?? 0))));
  }),
  heavy: await listen(ATTACKER_ADDRESS.heavy, (_req, res) => heavy(res)),
};
for (let k = 0; k < MAX_ATTACKERS; k++) {
  for (const attack of ATTACK_CLASSES) {
    const zone = `*.${attackZone(attack, k)}`;
    if (attack === 'nodns') dns.set(zone, { silent: true });
    else if (attack in ATTACKER_ADDRESS) dns.set(zone, { A: [ATTACKER_ADDRESS[attack as keyof typeof ATTACKER_ADDRESS]], ttl: TTL });
  }
  dns.set(`*.${hangZone(k)}`, { silent: true });
}

plan = {
  dns: dns.server,
  caFile: ca.caFile,
  sites,
  attackPorts: Object.fromEntries(Object.entries(attackers).map(([kind, server]) => [kind, (server.address() as AddressInfo).port])),
};
ready!();

process.on('SIGTERM', () => {
  for (const server of Object.values(attackers)) server.closeAllConnections();
  void Promise.all([...hosts.map((h) => h.close()), dns.close(), ca.remove()]).finally(() => process.exit(0));
});

function listen(address: string, handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, address, () => resolve(server)));
}
