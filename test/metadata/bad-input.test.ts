import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { MemoryExtractionStore } from '../../src/cache/extraction-store.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { createMetadataPipeline } from '../../src/engine/pipeline.js';
import { ClientLedger } from '../../src/fairness/client-ledger.js';
import { ScanPool } from '../../src/scan/scan-pool.js';
import { cachedMetadata } from '../../src/cache/cached-metadata.js';
import { RecentScanTimes } from '../../src/scan/scan-times.js';
import { testConfig } from '../fetch/harness.js';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';

// Pages built to cost as much as they can, one test per attack, through the real app (names from
// the world's nameserver, the upstream a real server on 127.0.0.1). Each gets a partial answer or a
// clear 422, never a 500, and an ordinary page is answered right after it. What bounds each one:
// the scan's markup bounds (wasm-parser/collect-limits.ts) and the byte cap for heavy heads, the request deadline for a
// page that drips after its head, the enrichment budget for an oEmbed host whose DNS never answers.

const html = { 'content-type': 'text/html; charset=utf-8' };
const REQUEST_DEADLINE_MS = 800;
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;

const millionTags = `<!doctype html><html><head><title>A million tags</title>${'<i>'.repeat(1_000_000)}</head><body>`;
const metaFlood = `<!doctype html><html><head><title>Ten thousand metas</title>${`<meta name="keywords" content="${'k'.repeat(1000)}">`.repeat(10_000)}</head><body>`;
/** 5 MB of head behind a `<title>`: gzip and brotli take it to a thousandth or less. */
const bombHead = (title: string) => Buffer.from(`<html><head><title>${title}</title>${'<i>'.repeat((5 * 1024 * 1024) / 3)}</head><body>`);

interface Ctx {
  dns: WorldDns;
  up: Upstream;
  svc: Service;
  site: (path: string) => string;
  dripping: ServerResponse[];
}
const attacks = suite<Ctx>('bad input to /v1/metadata');

attacks.before(async (ctx) => {
  ctx.dripping = [];
  ctx.dns = await startWorldDns();
  ctx.dns.set('site.test', { A: ['127.0.0.1'] });
  ctx.dns.set('hang.test', { silent: true });
  const gzipBomb = gzipSync(bombHead('Gzip bomb'));
  const brotliBomb = brotliCompressSync(bombHead('Brotli bomb'));
  ctx.up = await startUpstream({
    routes: {
      '/ok': respond(200, '<title>Ordinary</title>', html),
      '/million-tags': respond(200, gzipSync(millionTags), { ...html, 'content-encoding': 'gzip' }),
      '/meta-flood': respond(200, gzipSync(metaFlood), { ...html, 'content-encoding': 'gzip' }),
      '/gzip-bomb': respond(200, gzipBomb, { ...html, 'content-encoding': 'gzip' }),
      '/brotli-bomb': respond(200, brotliBomb, { ...html, 'content-encoding': 'br' }),
      '/drip-after-head': (_req, res) => {
        res.writeHead(200, html);
        (res as ServerResponse).write('<!doctype html><html><head><title>Drip</title>');
        const timer = setInterval(() => (res as ServerResponse).write('<i>'), 50);
        res.once('close', () => clearInterval(timer));
        ctx.dripping.push(res as ServerResponse);
      },
      '/oembed-dns-hangs': (_req, res) => {
        const endpoint = `http://hang.test:${ctx.up.port}/oembed`;
        void respond(
          200,
          `<html><head><title>Hanging oEmbed</title><link rel="alternate" type="application/json+oembed" href="${endpoint}"></head><body>`,
          html,
        )(_req, res);
      },
    },
  });
  // The bombs are what they claim: a thousand times their size or more once decoded.
  assert.ok(bombHead('').length / gzipBomb.length >= 1000 && bombHead('').length / brotliBomb.length >= 1000);
  ctx.svc = await startService({
    // The heavy pages on scan threads, as a service scans them by default.
    SCAN_WORKERS: '2',
    RATE_LIMIT_MAX: '0',
    PROBE_IMAGES: 'false',
    DNS_SERVERS: ctx.dns.server,
    FETCH_TIMEOUT_MS: '5000',
    ENRICH_BUDGET_MS: '300',
    REQUEST_DEADLINE_MS: String(REQUEST_DEADLINE_MS),
  });
  ctx.site = (path) => ctx.up.url(path, 'site.test').href;
});

attacks.after(async (ctx) => {
  for (const res of ctx.dripping) res.destroy();
  await ctx.svc.close();
  await ctx.up.close();
  await ctx.dns.close();
});

attacks.after.each(async ({ svc, site }) => {
  const res = await svc.request(q(`${site('/ok')}?n=${Math.random()}`));
  assert.equal([res.status, res.json.title], [200, 'Ordinary'], 'the next ordinary request is still answered');
});

/** A 200 with the title from the top of the head: the scan's partial answer. */
async function partial({ svc, site }: Ctx, path: string, title: string): Promise<void> {
  const res = await svc.request(q(site(path)));
  assert.equal([res.status, res.json.title], [200, title]);
}

attacks('a head of a million tags', async (ctx) => {
  await partial(ctx, '/million-tags', 'A million tags');
});

attacks('10,000 <meta> tags with 1 KB attributes', async (ctx) => {
  await partial(ctx, '/meta-flood', 'Ten thousand metas');
});

attacks('a gzip head that expands 1000×', async (ctx) => {
  await partial(ctx, '/gzip-bomb', 'Gzip bomb');
});

attacks('a brotli head that expands 1000×', async (ctx) => {
  await partial(ctx, '/brotli-bomb', 'Brotli bomb');
});

attacks('a page that is fast until <head> and then drips ends at the request deadline with a 422', async ({ svc, site }) => {
  const res = await svc.request(q(site('/drip-after-head')));
  assert.equal([res.status, res.json], [422, { code: 422, message: `The site did not answer within ${REQUEST_DEADLINE_MS / 1000} s.`, reason: 'timeout' }]);
});

attacks('an oEmbed link to a host whose DNS hangs is answered without its embed', async ({ svc, site }) => {
  const res = await svc.request(q(site('/oembed-dns-hangs')));
  assert.equal([res.status, res.json.title, res.json.embed], [200, 'Hanging oEmbed', null]);
});

attacks.run();

// The same million tags straight through the pipeline and a scan pool of one thread: the scan
// stops at the markup bound, /healthz's scan times count it, and its time is charged to its client.
const pipeline = suite('a scan at the markup bound, as the pipeline reports it');

pipeline('is counted in the recent scan times and its time is charged to its client', async () => {
  const up = await startUpstream({ routes: { '/million-tags': respond(200, gzipSync(millionTags), { ...html, 'content-encoding': 'gzip' }) } });
  const config = testConfig({});
  const fetcher = createSafeFetch(config);
  const ledger = new ClientLedger(() => 0);
  const scanner = new ScanPool({ size: 1, maxQueued: 4, ledger });
  const scanTimes = new RecentScanTimes({ now: () => 0 });
  const metadata = cachedMetadata(createMetadataPipeline({ config, safeFetch: fetcher.safeFetch, scanner, scanTimes }), {
    config,
    store: new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 }),
  });
  try {
    const answer = await metadata.get(up.url('/million-tags'), 'og', '203.0.113.7');
    assert.is(answer.metadata.title, 'A million tags');
    const recent = scanTimes.recent();
    assert.equal([recent.count, recent.markupLimit], [1, 1]);
    assert.ok(ledger.decayed('203.0.113.7') > 0, "the scan's time is charged to the client that asked");
    assert.is(ledger.decayed('198.51.100.1'), 0);
  } finally {
    await scanner.close();
    await fetcher.close();
    await up.close();
  }
});

pipeline.run();
