import { redisKeys } from '../../src/store/redis-keys.js';
import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { COMPONENTS, EXTRACTION_VERSION, extractionVersion } from '../../src/cache/extraction-shape.js';
import { RedisExtractionStore, type Extraction } from '../../src/cache/extraction-store.js';
import type { Metadata } from '../../generated/types.gen.js';
import { testRedisUrl } from '../helpers/redis.js';
import { metadataFor } from '../element/metadata-fixture.js';

// A shared cache cannot serve a stale shape: the version in an extraction's Redis key is derived
// from the Metadata schema (a new field, a changed type: a new key), and an entry read back is
// checked against the schema before it is used (one of another shape is a miss).

const withMetadata = (change: (metadata: any) => void) => {
  const copy = structuredClone(COMPONENTS) as Record<string, any>;
  change(copy.Metadata);
  return copy;
};

test('the version is the rules number and a digest of the Metadata schema', () => {
  assert.match(EXTRACTION_VERSION, /^x4\.[0-9a-f]{8}$/);
  assert.is(extractionVersion(COMPONENTS), EXTRACTION_VERSION);
});

test('a new Metadata field, or a field of another type, changes the version', () => {
  const added = withMetadata((m) => {
    m.properties.reading_minutes = { type: 'integer', nullable: true };
    m.required.push('reading_minutes');
  });
  const retyped = withMetadata((m) => (m.properties.title = { type: 'integer' }));
  const versions = [EXTRACTION_VERSION, extractionVersion(added), extractionVersion(retyped)];
  assert.is(new Set(versions).size, 3, versions.join(' '));
});

test('a reworded description or example leaves the version as it is', () => {
  const reworded = withMetadata((m) => {
    m.description = 'Other words.';
    m.properties.title.description = 'Other words.';
  });
  assert.is(extractionVersion(reworded), EXTRACTION_VERSION);
});

// A whole answer (both images with every field): what the service stores.
// A whole Metadata as the service answers it: the element's fixture, with the address it was fetched from.
const METADATA = { ...metadataFor('http://site.test'), fetched_url: 'http://site.test/' } as Metadata;

const stored = suite<{ redis: Redis; store: RedisExtractionStore }>('entries read back from Redis');
stored.before(async (ctx) => {
  ctx.redis = new Redis(testRedisUrl(11));
  ctx.store = new RedisExtractionStore(ctx.redis, 'shape:');
});
stored.after(async ({ redis }) => {
  await redis.flushdb();
  redis.disconnect();
});

stored('an entry of this shape is served, under the versioned key', async ({ redis, store }) => {
  const entry: Extraction = { ok: true, og: METADATA, twitter: METADATA, expiresAt: Date.now() + 60_000 };
  await store.set('ok', entry);
  assert.ok(await redis.get(redisKeys('shape:', EXTRACTION_VERSION).extraction('ok')));
  assert.equal(await store.get('ok'), entry);
  const failed: Extraction = { ok: false, code: 'FETCH_FAILED', reason: 'x', failure: { reason: 'timeout', message: 'm' }, expiresAt: Date.now() + 60_000 };
  await store.set('failed', failed);
  assert.equal(await store.get('failed'), failed);
});

stored('an entry of another shape (a field missing, a field of another type, not JSON) is a miss', async ({ redis, store }) => {
  const key = (name: string) => redisKeys('shape:', EXTRACTION_VERSION).extraction(name);
  const { embed: _, ...withoutEmbed } = METADATA as unknown as Record<string, unknown>;
  await redis.set(key('missing'), JSON.stringify({ ok: true, og: withoutEmbed, twitter: METADATA, expiresAt: Date.now() + 60_000 }));
  await redis.set(key('retyped'), JSON.stringify({ ok: true, og: { ...METADATA, title: 7 }, twitter: METADATA, expiresAt: Date.now() + 60_000 }));
  await redis.set(key('garbled'), '{"ok":tru');
  await redis.set(key('unversioned'), JSON.stringify({ ok: false, code: 'FETCH_FAILED' }));
  for (const name of ['missing', 'retyped', 'garbled', 'unversioned']) assert.is(await store.get(name), undefined, name);
});

test.run();
stored.run();
