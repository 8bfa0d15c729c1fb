// Bytes read: what share of each page LinkPeek pulled from the upstream before its
// answer was complete. Measured in this process with the service's own pipeline — safeFetch (the
// real fetcher, over real HTTP to the local upstream) then scanHead, exactly as
// src/metadata/service.ts calls them — counting every decoded body byte the scan pulled from
// safeFetch before it stopped at <body> and the upstream was closed. That counts whole chunks as
// undici delivered them (up to 64 KiB each), so it is what our code actually read, not just what the
// scanner needed (scan.bytesConsumed, shown beside it). The upstream's own count of bytes handed to
// its socket in the end-to-end runs is reported too, as an upper bound (kernel buffers absorb some).

import { mediaTypeCharset } from '../src/media-type.js';
import { loadConfig } from '../src/config.js';
import { createSafeFetch } from '../src/fetch/fetcher.js';
import { scanHead } from '../wasm-parser/index.js';
import { pino } from 'pino';
import { loadManifest } from './lib/corpus.js';
import { startUpstream } from './e2e.js';
import { LOCAL_DNS_SERVERS } from '../test/helpers/local-dns.js';

export interface BytesResult {
  pages: number;
  /** Share of the page pulled from safeFetch, per page. */
  pulledShare: number[];
  /** Share the scanner consumed, per page. */
  consumedShare: number[];
  pulledTotal: number;
  pageTotal: number;
}

export async function runBytes(): Promise<BytesResult> {
  const config = loadConfig({ ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'silent', DNS_SERVERS: LOCAL_DNS_SERVERS });
  const fetcher = createSafeFetch(config, { logger: pino({ level: 'silent' }) });
  const upstream = await startUpstream();
  const pulledShare: number[] = [];
  const consumedShare: number[] = [];
  let pulledTotal = 0;
  let pageTotal = 0;
  try {
    for (const page of loadManifest()) {
      const res = await fetcher.safeFetch(new URL(`${upstream.origin}/page/${page.name}?v=bytes`), { maxBytes: config.maxPageBytes });
      let pulled = 0;
      const counted = {
        async *[Symbol.asyncIterator]() {
          for await (const chunk of res.body) {
            pulled += chunk.length;
            yield chunk;
          }
        },
      };
      try {
        const scan = await scanHead(counted, { httpCharset: mediaTypeCharset(res.headers['content-type']) });
        consumedShare.push(scan.bytesConsumed / page.size);
      } finally {
        res.close();
      }
      pulledShare.push(pulled / page.size);
      pulledTotal += pulled;
      pageTotal += page.size;
    }
  } finally {
    await fetcher.close();
    await upstream.stop();
  }
  return { pages: pulledShare.length, pulledShare, consumedShare, pulledTotal, pageTotal };
}
