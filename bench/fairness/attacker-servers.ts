// The attackers' servers, in a process of their own: other machines than the bystander's sites
// (world-server.ts), so the pages an attack asks for are not made by the process that serves the
// bystander's. Plain HTTP at no distance (an attacker makes its own pages as fast as it can), any
// Host, on the addresses the world's nameserver gives their zones (names.ts), on ports the system
// picks.
//
//   node --import tsx bench/fairness/attacker-servers.ts   → "LISTENING <port>" on stderr
//   GET /plan → { attackPorts: { ordinary, drip, assets, heavy } }

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { imageFor } from '../../test/world/images.js';
import { ATTACKER_ADDRESS, hangZone } from './names.js';
import { articleHtml, drip, hangingAssetsHtml, heavy } from './pages.js';

let plan: unknown = null;
const control = http.createServer((req, res) => {
  res.writeHead(req.url === '/plan' && plan !== null ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(req.url === '/plan' ? plan : null));
});

const attackers = {
  // The control: ordinary articles, fast, their image and icon on the same server (a new image per
  // article, so every uncached answer probes them).
  ordinary: await listen(ATTACKER_ADDRESS.ordinary, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/img') || path === '/favicon.ico') {
      const image = imageFor(path);
      res.writeHead(200, { 'content-type': image.contentType, 'content-length': image.bytes.length });
      res.end(image.bytes);
      return;
    }
    const host = req.headers.host ?? 'x.ordinary-a0';
    const body = Buffer.from(articleHtml(host.split(':')[0]!, `http://${host}`, path));
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
plan = { attackPorts: Object.fromEntries(Object.entries(attackers).map(([kind, server]) => [kind, (server.address() as AddressInfo).port])) };
control.listen(0, '127.0.0.1', () => process.stderr.write(`LISTENING ${(control.address() as AddressInfo).port}\n`));

process.on('SIGTERM', () => {
  for (const server of Object.values(attackers)) server.closeAllConnections();
  process.exit(0);
});

function listen(address: string, handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, address, () => resolve(server)));
}
