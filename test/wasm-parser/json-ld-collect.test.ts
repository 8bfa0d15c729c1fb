// What the scanner collects for the fields beyond docs/SPEC.md: the text of each
// `<script type=application/ld+json>` before `<body>`, within COLLECT_LIMITS, and a meta's `media`.
// (The extra-fields fixture also goes through chunking.test.ts's random cuts.)
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scanHead } from '../../wasm-parser/index.js';
import { COLLECT_LIMITS } from '../../wasm-parser/collect-limits.js';
import { cut, prng, runSeed, utf8 } from './cuts.js';

const ld = (text: string, type = 'application/ld+json') => `<script type="${type}">${text}</script>`;
const scan = async (head: string) => (await scanHead(utf8(`<html><head>${head}</head><body><p>x</p></body></html>`))).tags;

test('collects each ld+json script of the head, raw, in document order', async () => {
  const tags = await scan(`${ld('{"a":1}')}<script>var x = 1;</script>${ld('[&amp; "b"]')}`);
  // Script text is raw text: `&amp;` is not a character reference there.
  assert.equal(tags.jsonLd, ['{"a":1}', '[&amp; "b"]']);
});

test('the type is matched case-insensitively; other types are not JSON-LD', async () => {
  const tags = await scan(`${ld('1', 'Application/LD+JSON')}${ld('2', 'application/json')}${ld('3', 'text/javascript')}${ld('4', 'application/ld+json+x')}`);
  assert.equal(tags.jsonLd, ['1']);
});

test('an ld+json script after <body> is not collected', async () => {
  const { tags } = await scanHead(utf8(`<head>${ld('"head"')}</head><body>${ld('"body"')}`));
  assert.equal(tags.jsonLd, ['"head"']);
});

test('a page without ld+json has no jsonLd at all, and an empty script is not kept', async () => {
  assert.not.ok('jsonLd' in (await scan('<title>t</title>')));
  assert.not.ok('jsonLd' in (await scan(ld(''))));
});

test('`</script>` ends the script; an escaped `<\\/script>` inside a JSON string does not', async () => {
  const tags = await scan(ld('{"h": "a <\\/script> b"}'));
  assert.equal(tags.jsonLd, ['{"h": "a <\\/script> b"}']);
});

test(`a script over ${COLLECT_LIMITS.jsonLdChars} characters is left out whole, the next one kept`, async () => {
  const big = `"${'x'.repeat(COLLECT_LIMITS.jsonLdChars - 1)}"`;
  const exact = `"${'y'.repeat(COLLECT_LIMITS.jsonLdChars - 2)}"`;
  const tags = await scan(`${ld(big)}${ld(exact)}${ld('"after"')}`);
  assert.equal(
    tags.jsonLd?.map((t) => t.length),
    [COLLECT_LIMITS.jsonLdChars, '"after"'.length],
  );
});

test(`scripts past ${COLLECT_LIMITS.jsonLdTotalChars} characters in all are left out`, async () => {
  // Four scripts just under the per-script bound nearly fill the total: a fifth does not fit, a
  // small one after it still does.
  const size = COLLECT_LIMITS.jsonLdChars - 10;
  const script = ld(`"${'z'.repeat(size - 2)}"`);
  const fits = Math.floor(COLLECT_LIMITS.jsonLdTotalChars / size);
  const tags = await scan(script.repeat(fits + 1) + ld('1'));
  assert.equal(
    tags.jsonLd?.map((t) => t.length),
    [...Array.from({ length: fits }, () => size), 1],
  );
  assert.is(tags.jsonLd?.at(-1), '1');
});

test(`no more than ${COLLECT_LIMITS.jsonLdScripts} scripts are kept`, async () => {
  const tags = await scan(Array.from({ length: COLLECT_LIMITS.jsonLdScripts + 5 }, (_, i) => ld(String(i))).join(''));
  assert.equal(
    tags.jsonLd,
    Array.from({ length: COLLECT_LIMITS.jsonLdScripts }, (_, i) => String(i)),
  );
});

test('an over-long script gives the same result however the input is cut', async () => {
  const bytes = utf8(`<head>${ld(`"${'w'.repeat(COLLECT_LIMITS.jsonLdChars)}"`)}${ld('{"kept":true}')}</head><body>`);
  const whole = await scanHead(bytes);
  const seed = runSeed();
  const random = prng(seed);
  for (let round = 0; round < 5; round++) {
    const chunks = cut(bytes, random, 4096);
    const source = (async function* () {
      yield* chunks;
    })();
    assert.equal(await scanHead(source), whole, `SCAN_SEED=${seed}, round ${round}`);
  }
  assert.equal(whole.tags.jsonLd, ['{"kept":true}']);
});

test("a meta's media= is kept (decoded) when present, and absent otherwise", async () => {
  const tags = await scan(
    '<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#000"><meta name="theme-color" MEDIA="a &amp; b" content="#fff"><meta name="theme-color" content="red">',
  );
  assert.equal(
    tags.metas.map((m) => m.media),
    ['(prefers-color-scheme: dark)', 'a & b', undefined],
  );
  assert.not.ok('media' in tags.metas[2]!);
});

test("the extra-fields fixture: the head's two scripts, not the text/javascript one nor the body's", async () => {
  const { tags } = await scanHead(new Uint8Array(readFileSync(new URL('../fixtures/pages/extra-fields.html', import.meta.url))));
  assert.is(tags.jsonLd?.length, 2);
  assert.ok(tags.jsonLd![0]!.includes('"@graph"'));
  assert.ok(tags.jsonLd![1]!.startsWith('//<![CDATA['));
});

test.run();
