// Every fixture, cut into random-size chunks, gives the same ScanResult as the whole document
//. The seed is printed; SCAN_SEED=<n> replays a failing run.
import { mediaTypeCharset } from '../../src/media-type.js';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HeadScanner, scanHead } from '../../wasm-parser/index.js';
import type { ScanResult } from '../../wasm-parser/types.js';
import { cut, prng, runSeed, trackedSource } from './cuts.js';
import { bomPages, encodedPages } from './encoded-pages.js';

const CUTS_PER_FIXTURE = 25;
const fixturesDir = new URL('../fixtures/pages/', import.meta.url);

const fixtures = [
  ...readdirSync(fixturesDir)
    .filter((name) => name.endsWith('.html'))
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(new URL(name, fixturesDir))), contentType: null as string | null })),
  ...[...encodedPages, ...bomPages].map((p) => ({ name: p.name, bytes: p.bytes, contentType: p.contentType })),
];

const seed = runSeed();

for (const [index, fixture] of fixtures.entries()) {
  test(`${fixture.name}: ${CUTS_PER_FIXTURE} random cuts give the result of the whole document`, async () => {
    const whole = await scanHead(fixture.bytes, { httpCharset: mediaTypeCharset(fixture.contentType) });
    // One stream of cuts per fixture, so adding a fixture does not change the others' cuts.
    const random = prng(seed + index);
    for (let round = 0; round < CUTS_PER_FIXTURE; round++) {
      const chunks = cut(fixture.bytes, random, round % 2 ? 97 : 4096);
      const { source } = trackedSource(chunks);
      const piecewise: ScanResult = await scanHead(source, { httpCharset: mediaTypeCharset(fixture.contentType) });
      assert.equal(piecewise, whole, `SCAN_SEED=${seed}, round ${round}, ${chunks.length} chunks`);
    }
  });
}

test('the streaming class gives the same result as scanHead for every cut of a fixture', async () => {
  const fixture = fixtures.find((f) => f.name === 'full-head.html')!;
  const whole = await scanHead(fixture.bytes);
  const random = prng(seed ^ 0x5eed);
  for (let round = 0; round < CUTS_PER_FIXTURE; round++) {
    const scanner = new HeadScanner();
    for (const chunk of cut(fixture.bytes, random)) if (await scanner.write(chunk)) break;
    assert.equal(await scanner.end(), whole, `SCAN_SEED=${seed}, round ${round}`);
  }
});

test.run();
