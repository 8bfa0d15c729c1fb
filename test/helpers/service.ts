// Starts the real app on 127.0.0.1, port 0, for integration tests, and returns a client whose
// every response is checked against openapi.yaml (helpers/contract.ts).

import http from 'node:http';
import zlib from 'node:zlib';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp, type App, type AppDeps } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createServer } from '../../src/server.js';
import { assertContract } from './contract.js';
import { LOCAL_DNS_SERVERS } from './local-dns.js';

/**
 * Defaults for tests: quiet logs, loopback upstreams allowed (the upstreams are test servers), and
 * names resolved by an empty loopback nameserver, never the system's resolvers.
 */
// SCAN_WORKERS 0: pages are scanned on the test's own thread. A scan thread started from the
// TypeScript sources compiles its modules first (about a second of CPU each), on every one of the
// suite's hundreds of service starts; the threads are exercised where they are the subject
// (test/scan/, test/metadata/bad-input.test.ts) and by every test of the compiled service
// (test/helpers/process.ts), which keeps the default.
// METRICS_PUBLIC: the tests read /metrics on the one port they started. The per-client caps on
// connections and requests in flight are off: tests send from 127.0.0.1 at once far more than
// one client would (their own tests turn them on, test/api/client-concurrency.test.ts).
// SHED_TARGET_MS 0: a loaded test machine (CI runs two files at once) must not make the one test
// client look like the heaviest of an overloaded instance; test/api/overload.test.ts turns it on.
export const TEST_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  SCAN_WORKERS: '0',
  ALLOW_PRIVATE_NETWORKS: 'true',
  DNS_SERVERS: LOCAL_DNS_SERVERS,
  METRICS_PUBLIC: 'true',
  MAX_CONNECTIONS_PER_CLIENT: '0',
  MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '0',
  CLIENT_REQUESTS_PER_SECOND: '0',
  SHED_TARGET_MS: '0',
};

export interface CheckedResponse {
  status: number;
  headers: Headers;
  /** The bytes as sent (compressed when Content-Encoding says so). */
  body: Uint8Array;
  /** The body decoded from its Content-Encoding, as UTF-8. */
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any;
}

export interface Service {
  baseUrl: string;
  config: Config;
  app: App;
  server: http.Server;
  /** GET (or `init.method`) a path on the service; the response is checked against the contract. */
  request(pathAndQuery: string, init?: RequestInit & { localAddress?: string }): Promise<CheckedResponse>;
  close(): Promise<void>;
}

export async function startService(env: Record<string, string> = {}, deps: AppDeps = {}): Promise<Service> {
  const config = loadConfig({ ...TEST_ENV, ...env });
  const app = await createApp(config, { logger: pino({ level: config.logLevel }), ...deps });
  const server = createServer(app, config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    config,
    app,
    server,
    request: (pathAndQuery, init) => checkedRequest(baseUrl + pathAndQuery, init),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

/** A body as its Content-Encoding says it was sent: gzip, br or as it is. */
function decode(body: Buffer, coding: string | null): Buffer {
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  if (coding !== null) throw new Error(`unexpected Content-Encoding ${coding}`);
  return body;
}

/**
 * One request from a chosen local address (rate-limit tests spread clients over 127.0.0.N),
 * through node:http so nothing is followed or decoded behind the test's back.
 */
export function checkedRequest(url: string, init: RequestInit & { localAddress?: string } = {}): Promise<CheckedResponse> {
  const target = new URL(url);
  const method = init.method ?? 'GET';
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method, headers: init.headers as http.OutgoingHttpHeaders, localAddress: init.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined) continue;
          for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
        }
        const body = new Uint8Array(Buffer.concat(chunks));
        const status = res.statusCode ?? 0;
        let decoded: Buffer;
        try {
          decoded = decode(Buffer.from(body), headers.get('content-encoding'));
          assertContract({ method, path: target.pathname, status, headers, body: decoded });
        } catch (err) {
          reject(err);
          return;
        }
        recordRequest(method, target, init.headers, status);
        const text = decoded.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status, headers, body, text, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * With TEST_RECORD_REQUESTS set to a folder, every request a test sends through checkedRequest is
 * appended there (one JSON line: method, path and query, headers, the status it got; one file per
 * test process), for CI's replay of the suite's requests through Prism's validating proxy
 * (.ci/contract-replay.ts).
 */
function recordRequest(method: string, target: URL, headers: RequestInit['headers'], status: number): void {
  const dir = process.env.TEST_RECORD_REQUESTS;
  if (!dir) return;
  const sent = Object.fromEntries(new Headers(headers));
  const line = JSON.stringify({ method, path: target.pathname + target.search, headers: sent, status });
  appendFileSync(path.join(dir, `${process.pid}.jsonl`), line + '\n');
}
