// The image, icon and oEmbed probes of a page are charged to the client whose request named them:
// they take that client's fetch slots and lookups, never the service's own or another client's.
// Real enrichers, a real safeFetch, a loopback upstream whose assets never answer, and the
// loopback nameserver of the simulated internet for the prefetch of image hosts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { scanHead } from '../../wasm-parser/index.js';
import { clientKey } from '../../src/client-key.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { embedLookup } from '../../src/oembed/embed-lookup.js';
import { imageEnricher } from '../../src/metadata/enrich-images.js';
import { emptyMetadata } from '../../src/metadata/extract.js';
import type { EnrichmentInput } from '../../src/metadata/enrichment.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { startWorldDns, type WorldDns } from '../world/dns-server.js';
import { testConfig } from './harness.js';
import { until } from '../helpers/until.js';

interface Ctx {
  up: Upstream;
  dns: WorldDns;
}
const test = suite<Ctx>('probes charged to their client');
test.before.each(async (ctx) => {
  ctx.up = await startUpstream({ routes: { '/hang.png': () => {}, '/icon.png': () => {}, '/oembed': () => {} } });
  ctx.dns = await startWorldDns();
});
test.after.each(async (ctx) => {
  await ctx.up.close();
  await ctx.dns.close();
});

const CLIENT = '10.5.0.1';

async function pageInput(up: Upstream): Promise<EnrichmentInput> {
  const finalUrl = up.url('/page');
  const html = `<head><link rel="alternate" type="application/json+oembed" href="${up.url('/oembed').href}"></head>`;
  const { tags } = await scanHead(new TextEncoder().encode(html), {});
  const og = emptyMetadata(finalUrl);
  og.image.url = up.url('/hang.png').href;
  og.favicon.url = up.url('/icon.png').href;
  return { target: finalUrl, client: CLIENT, finalUrl, tags, og, twitter: structuredClone(og) };
}

test("a page's image, icon and oEmbed probes hold its client's fetch slots, not the service's", async ({ up }) => {
  const config = testConfig({ FETCH_TIMEOUT_MS: '3000' });
  const fetcher = createSafeFetch(config);
  const budget = new AbortController();
  try {
    const input = await pageInput(up);
    const images = imageEnricher({ safeFetch: fetcher.safeFetch, config });
    const embeds = embedLookup({ safeFetch: fetcher.safeFetch, providers: [] });
    const running = Promise.all([images(input, budget.signal), embeds.enricher(input, budget.signal)]);
    await until(() => fetcher.limiter.inFlight >= 3, 'three fetches in flight');
    assert.equal([fetcher.limiter.heldBy(clientKey(CLIENT)), fetcher.limiter.heldBy(null)], [3, 0]);
    budget.abort(new Error('enrichment budget spent'));
    await running;
    assert.is(fetcher.limiter.inFlight, 0);
  } finally {
    await fetcher.close();
  }
});

test("the prefetch of an image host takes one of the client's lookups, and none once its share is spent", async ({ dns }) => {
  for (const name of ['img1.test', 'img2.test', 'img3.test']) dns.set(name, { silent: true });
  const fetcher = createSafeFetch(testConfig({ DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '1000', MAX_LOOKUPS_PER_CLIENT: '2' }));
  try {
    const lookups = fetcher.lookups;
    lookups.prefetch('img1.test', CLIENT);
    lookups.prefetch('img2.test', CLIENT);
    lookups.prefetch('img3.test', CLIENT); // the client's two lookups are taken: dropped
    assert.equal([lookups.scheduler.heldBy(clientKey(CLIENT)), lookups.scheduler.heldBy(null)], [2, 0]);
    // Queries leave in order: once the last prefetch's arrived, a third would have too.
    await until(() => dns.queries('img2.test', 'AAAA') > 0, 'the AAAA query of img2.test');
    assert.is(dns.queries('img3.test'), 0, 'never asked');
    await until(() => lookups.scheduler.inFlight === 0, 'no lookup in flight');
  } finally {
    await fetcher.close();
  }
});

test.run();
