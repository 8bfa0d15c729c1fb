// Attacks that spend the service's bytes and event loop rather than its fetches and scans:
//
//   images              each address pulls 4 MB images through the image proxy at the rate limit
//                       (a new URL each time, so no two share an upstream fetch), from an image
//                       host this process serves itself (the world's process, which serves the
//                       bystander's sites, would otherwise spend its time on the attack's bytes)
//   keepalive-openapi   one address, `size` keep-alive connections, each asking /openapi.yaml
//   keepalive-healthz   ... /healthz, again as soon as the last answer has ended
//
// For the keep-alive classes `size` is the number of connections of the one address; the paths are
// outside the rate limit, so nothing but the per-client caps slows them.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { JPEG } from '../../test/proxy/images.js';
import { attackers, type AttackOutcome, type StatusCounts } from './attacks.js';
import type { From } from './client.js';
import { attackZone, type AttackClass } from './names.js';

export const BYTE_ATTACKS = ['images', 'keepalive-openapi', 'keepalive-healthz'] as const;
export type ByteAttack = (typeof BYTE_ATTACKS)[number];
export const isByteAttack = (attack: AttackClass): attack is ByteAttack => (BYTE_ATTACKS as readonly string[]).includes(attack);

/** The keep-alive attacker's one address (the bystander is 127.3.0.1, the page attackers 127.2.x.y). */
const KEEPALIVE_ADDRESS = '127.4.0.1';
const KEEPALIVE_PATH: Record<Exclude<ByteAttack, 'images'>, string> = { 'keepalive-openapi': '/openapi.yaml', 'keepalive-healthz': '/healthz' };

/** The image every address pulls: a real JPEG's header, then filler to 4 MB (the proxy streams what the first bytes allowed). */
export const BIG_JPEG = Buffer.concat([JPEG.subarray(0, JPEG.length - 2), Buffer.alloc(4 * 1024 * 1024 - JPEG.length, 0x55), Buffer.from([0xff, 0xd9])]);

/** Where the world's nameserver sends every `*.images-aK` name (world-server.ts). */
export const IMAGE_HOST_ADDRESS = '127.0.62.5';

/** The attackers' image host: BIG_JPEG at any path, on IMAGE_HOST_ADDRESS; its port. */
async function serveBigJpeg(): Promise<{ port: number; close(): void }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': BIG_JPEG.length });
    res.end(BIG_JPEG);
  });
  await new Promise<void>((resolve) => server.listen(0, IMAGE_HOST_ADDRESS, resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

const IMAGE_TIMEOUT_MS = 30_000;

/** Runs a byte attack until `endAt` (performance.now()), as runAttack does for the page classes. */
export function runByteAttack(
  attack: ByteAttack,
  size: number,
  origin: string,
  endAt: number,
  paceMs: number,
): { sent: () => number; done: Promise<AttackOutcome> } {
  const statuses: StatusCounts = {};
  const answeredMs: number[] = [];
  const count = ({ status, ms }: { status: number; ms: number }) => {
    const key = String(status || 'no answer');
    statuses[key] = (statuses[key] ?? 0) + 1;
    if (status > 0) answeredMs.push(ms);
  };
  let sent = 0;
  const pending: Promise<void>[] = [];
  let loops: Promise<void>[];
  if (attack === 'images') {
    const host = serveBigJpeg();
    loops = attackers(size).map(async (attacker) => {
      const { port } = await host;
      await sleep(Math.random() * paceMs);
      while (performance.now() < endAt) {
        const started = performance.now();
        const image = `http://img.${attackZone('images', attacker.k)}:${port}/${randomBytes(6).toString('hex')}.jpg`;
        sent++;
        pending.push(drainingGet(`${origin}/v1/cors-proxy?url=${encodeURIComponent(image)}`, attacker.from(), undefined, IMAGE_TIMEOUT_MS).then(count));
        await sleep(Math.max(0, started + paceMs - performance.now()));
      }
    });
    void Promise.all(loops)
      .then(() => Promise.all(pending))
      .then(async () => (await host).close());
  } else {
    const agent = new http.Agent({ keepAlive: true, maxSockets: size, localAddress: KEEPALIVE_ADDRESS } as http.AgentOptions);
    const url = `${origin}${KEEPALIVE_PATH[attack]}`;
    loops = Array.from({ length: size }, async () => {
      while (performance.now() < endAt) {
        sent++;
        const answer = await drainingGet(url, { address: KEEPALIVE_ADDRESS }, agent, 10_000);
        count(answer);
        // A refused connection (the per-client cap) is tried again after a moment, not in a busy loop.
        if (answer.status === 0) await sleep(50);
      }
    });
    void Promise.all(loops).then(() => agent.destroy());
  }
  return {
    sent: () => sent,
    done: Promise.all(loops).then(async () => {
      await Promise.all(pending);
      return { statuses, answeredMs };
    }),
  };
}

/** GET whose body is read and dropped; the status (0 when no whole answer came within `timeoutMs`) and its ms. */
function drainingGet(url: string, from: From, agent: http.Agent | undefined, timeoutMs: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers = { 'accept-encoding': 'gzip, br', ...(from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {}) };
    const req = http.get(url, { localAddress: from.address, agent: agent ?? false, headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => finish(res.statusCode ?? 0));
      res.on('error', () => finish(0));
    });
    const deadline = setTimeout(() => req.destroy(), timeoutMs);
    const finish = (status: number) => {
      clearTimeout(deadline);
      resolve({ status, ms: performance.now() - started });
    };
    req.on('error', () => finish(0));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
