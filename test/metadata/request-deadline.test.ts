// REQUEST_DEADLINE_MS over the enrichment: an enricher that would run for its whole (long) budget
// is stopped when the extraction's deadline passes, and the answer keeps what it set by then.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryExtractionStore } from '../../src/cache/extraction-store.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { createMetadataPipeline } from '../../src/engine/pipeline.js';
import { inlineScanner } from '../../src/scan/scan-pool.js';
import { cachedMetadata } from '../../src/cache/cached-metadata.js';
import { testConfig } from '../fetch/harness.js';
import { respond, startUpstream } from '../helpers/upstream.js';

test('the request deadline stops an enrichment whose own budget is far longer; what it set stands', async () => {
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>Page</title>', { 'content-type': 'text/html' }) } });
  const config = testConfig({ ENRICH_BUDGET_MS: '600000', REQUEST_DEADLINE_MS: '500' });
  const fetcher = createSafeFetch(config);
  let stopped = false;
  const metadata = cachedMetadata(
    createMetadataPipeline({
      config,
      scanner: inlineScanner(),
      safeFetch: fetcher.safeFetch,
      enrichers: [
        async (input, signal) => {
          input.og.site_name = 'set before the deadline';
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          stopped = true;
        },
      ],
    }),
    { config, store: new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 }) },
  );
  try {
    // Without the deadline the answer would wait for the enrichment budget: ten minutes.
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000).unref());
    const answer = await Promise.race([metadata.get(up.url('/p'), 'og'), hung]);
    assert.ok(answer !== 'hung', 'answered within the request deadline');
    assert.equal([answer.metadata.title, answer.metadata.site_name, stopped], ['Page', 'set before the deadline', true]);
  } finally {
    await fetcher.close();
    await up.close();
  }
});

test.run();
