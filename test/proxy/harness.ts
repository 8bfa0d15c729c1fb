// The proxy tests run through the real app (src/app.ts createApp via helpers/service.ts), with
// proxyImage mounted as its image proxy (deps.proxy) and a safeFetch built from the same config,
// whose limiter the tests can read. createApp does not mount the proxy by default yet.

import http from 'node:http';
import { loadConfig, type Config } from '../../src/config.js';
import { createSafeFetch, type SafeFetchDeps, type SafeFetchService } from '../../src/fetch/fetcher.js';
import { createImageProxy } from '../../src/proxy/proxy.js';
import { startService, TEST_ENV, type Service } from '../helpers/service.js';
import { TEST_CA_FILE } from '../helpers/upstream.js';

export interface ProxyService {
  service: Service;
  config: Config;
  fetcher: SafeFetchService;
  /** The service path that proxies `imageUrl`. */
  path(imageUrl: string | URL): string;
  close(): Promise<void>;
}

export async function startProxyService(env: Record<string, string> = {}, fetchDeps: SafeFetchDeps = {}): Promise<ProxyService> {
  const fullEnv = { UPSTREAM_CA_FILE: TEST_CA_FILE, RATE_LIMIT_MAX: '0', ...env };
  const config = loadConfig({ ...TEST_ENV, ...fullEnv });
  const fetcher = createSafeFetch(config, fetchDeps);
  const service = await startService(fullEnv, {
    fetch: fetchDeps,
    proxy: createImageProxy({ safeFetch: fetcher.safeFetch, config }),
  });
  return {
    service,
    config,
    fetcher,
    path: (imageUrl) => `/v1/cors-proxy?url=${encodeURIComponent(String(imageUrl))}`,
    async close() {
      await service.close();
      await fetcher.close();
    },
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Set when the connection was cut before the response was complete. */
  aborted: boolean;
}

/**
 * A GET that reports a cut connection instead of throwing (for streams the proxy must abort).
 * `stopAfter` bytes received, the client hangs up itself.
 */
export function rawGet(url: string, opts: { stopAfter?: number } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      let settled = false;
      const done = (aborted: boolean) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), aborted });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (opts.stopAfter !== undefined && received >= opts.stopAfter) {
          req.destroy();
          done(true);
        }
      });
      res.on('end', () => done(!res.complete));
      res.on('aborted', () => done(true));
      res.on('error', () => done(true));
      res.on('close', () => done(!res.complete));
    });
    req.on('error', (err) => reject(err));
  });
}
