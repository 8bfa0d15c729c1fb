import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerTiming } from '../../src/api/server-timing.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import type { SafeFetch } from '../../src/fetch/types.js';
import { MemoryExtractionStore } from '../../src/cache/extraction-store.js';
import { createMetadataPipeline } from '../../src/engine/pipeline.js';
import { inlineScanner } from '../../src/scan/scan-pool.js';
import { cachedMetadata } from '../../src/cache/cached-metadata.js';
import { respond, startUpstream } from '../helpers/upstream.js';
import { testConfig } from '../fetch/harness.js';

// Server-Timing's steps of a miss, from the metadata service: dns and connect come from safeFetch's
// `timings` when it measured them (a new connection), and are left out when it did not. Every
// safeFetch answer carries timings: a fresh fetcher always opens a new connection, so connect is
// measured; an IP literal needs no lookup, so dns is not.

const html = { 'content-type': 'text/html' };
const STEPS = /^cache;desc=miss(, (dns|connect|fetch|scan|enrich);dur=\d+(\.\d)?)+$/;

async function timingOf(timings: { dnsMs: number | null; connectMs: number | null } | undefined): Promise<string> {
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>x</title>', html) } });
  const config = testConfig();
  const fetcher = createSafeFetch(config);
  // safeFetch as it answers, its timings replaced by `timings` when given.
  const safeFetch: SafeFetch = async (url, options) => Object.assign(await fetcher.safeFetch(url, options), timings ? { timings } : {});
  const service = cachedMetadata(createMetadataPipeline({ config, scanner: inlineScanner(), safeFetch, enrichers: [async () => {}] }), {
    config,
    store: new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 }),
  });
  try {
    const timing = new ServerTiming();
    await service.get(up.url('/p'), 'og', undefined, timing);
    return timing.header();
  } finally {
    await fetcher.close();
    await up.close();
  }
}

test('a miss on a new connection reports dns and connect before fetch, scan and enrich', async () => {
  const header = await timingOf({ dnsMs: 2.25, connectMs: 1.5 });
  assert.match(header, STEPS);
  assert.match(header, /^cache;desc=miss, dns;dur=2\.3, connect;dur=1\.5, fetch;dur=[\d.]+, scan;dur=[\d.]+, enrich;dur=[\d.]+$/);
});

test('unmeasured dns and connect (a reused connection) are left out', async () => {
  assert.match(await timingOf({ dnsMs: null, connectMs: null }), /^cache;desc=miss, fetch;dur=[\d.]+, scan;dur=[\d.]+, enrich;dur=[\d.]+$/);
  assert.match(await timingOf({ dnsMs: null, connectMs: 0.4 }), /^cache;desc=miss, connect;dur=0\.4, fetch;/);
});

test("safeFetch's own timings: a new connection to an IP literal reports connect, and no dns", async () => {
  assert.match(await timingOf(undefined), /^cache;desc=miss, connect;dur=[\d.]+, fetch;dur=[\d.]+, scan;dur=[\d.]+, enrich;dur=[\d.]+$/);
});

test('a hit of the extraction store says hit and nothing else', async () => {
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>x</title>', html) } });
  const config = testConfig();
  const fetcher = createSafeFetch(config);
  const service = cachedMetadata(createMetadataPipeline({ config, scanner: inlineScanner(), safeFetch: fetcher.safeFetch }), {
    config,
    store: new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 }),
  });
  try {
    await service.get(up.url('/p'), 'og', undefined, new ServerTiming());
    const timing = new ServerTiming();
    await service.get(up.url('/p'), 'twitter', undefined, timing);
    assert.is(timing.header(), 'cache;desc=hit');
  } finally {
    await fetcher.close();
    await up.close();
  }
});

test.run();
