// What the head scanner collects, where it stops, and how it treats its source.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HeadScanner, scanHead } from '../../wasm-parser/index.js';
import { READ_LIMITS } from '../../wasm-parser/collect-limits.js';
import { trackedSource, utf8 } from './cuts.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/pages/${name}`, import.meta.url)));

test('collects every head <meta> with property, name, itemprop, http-equiv, content and charset', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  assert.equal(tags.metas[0], { property: null, name: null, itemprop: null, httpEquiv: null, content: null, charset: 'utf-8', value: null });
  assert.equal(tags.metas[1], {
    property: null,
    name: 'description',
    itemprop: null,
    httpEquiv: null,
    content: 'A cat, a mouse & a house.',
    charset: null,
    value: null,
  });
  assert.ok(tags.metas.some((m) => m.itemprop === 'name' && m.content === 'Tom and Jerry (schema)'));
  assert.ok(tags.metas.some((m) => m.httpEquiv === 'X-UA-Compatible' && m.content === 'IE=edge'));
  assert.ok(tags.metas.some((m) => m.name === 'twitter:card' && m.content === 'summary_large_image'));
  assert.is(tags.metas.length, 17);
});

test('collects the <title> text, entity-decoded, the first <base href>, <html lang> and script srcs', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  assert.is(tags.title, 'Tom & Jerry – the   full\n    story');
  assert.is(tags.baseHref, '/articles/');
  assert.is(tags.lang, 'en-GB');
  assert.equal(tags.scriptSrcs, ['/js/app.js']);
});

test('collects every <link> with rel, href, type and sizes in document order', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  assert.equal(tags.links, [
    { rel: 'canonical', href: 'https://example.com/articles/tom-and-jerry?ref=canonical', type: null, sizes: null },
    { rel: 'stylesheet', href: '/site.css', type: null, sizes: null },
    { rel: 'icon', href: '/favicon-32.png', type: 'image/png', sizes: '32x32' },
    { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml', sizes: null },
    { rel: 'apple-touch-icon', href: '/apple-touch-icon.png', type: null, sizes: '180x180' },
  ]);
});

test('stops at the first <body> start tag: an og:title and a <title> inside <body> change nothing', async () => {
  const result = await scanHead(fixture('full-head.html'));
  assert.is(result.stoppedAtBody, true);
  const ogTitles = result.tags.metas.filter((m) => m.property === 'og:title').map((m) => m.content);
  assert.equal(ogTitles, ['Tom & Jerry (og)']);
  assert.is(result.tags.title, 'Tom & Jerry – the   full\n    story');
});

test('<body> inside a script, a comment or a style does not stop the scan', async () => {
  const { tags } = await scanHead(fixture('full-head.html'));
  // The metas written inside the script and the comment are not tags either.
  assert.not.ok(tags.metas.some((m) => m.content === 'from script' || m.content === 'from a comment'));
  assert.ok(tags.links.length === 5);
});

test('metas after odd head content still count as long as they precede <body> (a token, not a DOM guess)', async () => {
  const { tags, stoppedAtBody } = await scanHead(fixture('odd-head.html'));
  assert.is(stoppedAtBody, true);
  assert.equal(
    tags.metas.map((m) => [m.property ?? m.name, m.content]),
    [
      ['og:title', 'after the stray text'],
      ['twitter:card', 'summary'],
    ],
  );
  assert.equal(tags.links, [{ rel: 'shortcut icon', href: '/shortcut.ico', type: null, sizes: null }]);
});

test('without a <body> tag the whole input is read and stoppedAtBody is false', async () => {
  const bytes = fixture('no-body.html');
  const result = await scanHead(bytes);
  assert.is(result.stoppedAtBody, false);
  assert.is(result.bytesConsumed, bytes.length);
  assert.is(result.tags.metas.at(-1)?.content, 'still read: no body tag was ever seen');
});

test('decodes character references in attributes (attribute rules) and in the title', async () => {
  const { tags } = await scanHead(fixture('entities.html'));
  assert.is(tags.title, 'Café <Menu> &amp; 😀 ©');
  const content = (key: string) => tags.metas.find((m) => m.property === key)?.content;
  assert.is(content('og:title'), 'Fish & Chips "Deluxe" \'n\' more');
  // "&copy=" stays as written inside an attribute (HTML: legacy reference followed by "=").
  assert.is(content('og:url'), 'https://example.com/?a=1&b=2&copy=3');
  assert.is(content('og:description'), '<b>bold</b> \u00a0text…');
});

test('the first <title> wins; a second one in the head is ignored', async () => {
  const { tags } = await scanHead(utf8('<head><title>One</title><title>Two</title></head><body>'));
  assert.is(tags.title, 'One');
});

test('an empty <title> is the empty string; no <title> is null', async () => {
  assert.is((await scanHead(utf8('<title></title><body>'))).tags.title, '');
  assert.is((await scanHead(utf8('<meta name=a content=b><body>'))).tags.title, null);
});

test("a meta's value= (early Twitter Card markup) is kept beside content=", async () => {
  const { tags } = await scanHead(utf8('<meta name="twitter:card" value="summary&amp;more"><body>'));
  assert.is(tags.metas[0]?.value, 'summary&more');
  assert.is(tags.metas[0]?.content, null);
});

test('attribute names are matched case-insensitively and the first of a repeated attribute wins', async () => {
  const { tags } = await scanHead(utf8('<META PROPERTY="og:title" Content="first" content="second"><body>'));
  assert.is(tags.metas[0]?.property, 'og:title');
  assert.is(tags.metas[0]?.content, 'first');
});

test('stops pulling from the source at <body> and calls return() on its iterator', async () => {
  const head = utf8('<html><head><title>T</title></head><body>');
  const chunks = [head, ...Array.from({ length: 50 }, () => new Uint8Array(4096).fill(0x61))];
  const { source, state } = trackedSource(chunks);
  const result = await scanHead(source);
  assert.is(result.stoppedAtBody, true);
  assert.is(state.returned, true);
  // The <body> is complete in the first chunk; the next one fills the first 2 KiB block.
  assert.ok(state.pulled <= 2, `pulled ${state.pulled} chunks`);
  assert.is(result.bytesConsumed, 2048);
});

test('bytesConsumed is the end of the 2 KiB block in which <body> completed, however the input is cut', async () => {
  const page = utf8(`<head><title>x</title>${'<meta name=filler content=x>'.repeat(100)}</head><body>${'y'.repeat(10000)}`);
  const bodyEnd = new TextDecoder().decode(page).indexOf('<body>') + '<body>'.length;
  const expected = Math.ceil(bodyEnd / 2048) * 2048;
  for (const size of [1, 7, 100, 2048, 3000, page.length]) {
    const scanner = new HeadScanner();
    for (let at = 0; at < page.length; at += size) if (await scanner.write(page.slice(at, at + size))) break;
    const result = await scanner.end();
    assert.is(result.bytesConsumed, expected, `chunks of ${size}`);
  }
});

test('a long head is read in growing blocks (an eighth of what was read, up to 64 KiB), at the same offsets however the input is cut', async () => {
  const page = utf8(
    `<head><title>x</title><script>${'var a = 1 < 2;\n'.repeat(20000)}</script><meta property="og:title" content="late"></head><body>${'y'.repeat(100000)}`,
  );
  const bodyEnd = new TextDecoder().decode(page).indexOf('<body>') + '<body>'.length;
  // The documented rule, block by block from offset 0.
  let expected = 0;
  while (expected < bodyEnd) expected += Math.min(65536, Math.max(2048, Math.floor(expected / 8 / 2048) * 2048));
  assert.ok(expected - bodyEnd <= bodyEnd / 8 + 2048, 'the overshoot stays within an eighth');
  assert.ok(expected > Math.ceil(bodyEnd / 2048) * 2048, 'the blocks grew past 2 KiB');
  for (const size of [7, 1000, 65536, page.length]) {
    const scanner = new HeadScanner();
    for (let at = 0; at < page.length; at += size) if (await scanner.write(page.slice(at, at + size))) break;
    const result = await scanner.end();
    assert.is(result.bytesConsumed, expected, `chunks of ${size}`);
    assert.is(result.tags.metas[0]?.content, 'late');
  }
});

test('an error from the source reaches the caller (and the rewriter is freed: see memory.test.ts)', async () => {
  const failing: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      yield utf8('<head><title>partial');
      throw new Error('upstream reset');
    },
  };
  let error: unknown = null;
  try {
    await scanHead(failing);
  } catch (e) {
    error = e;
  }
  assert.instance(error, Error);
  assert.is((error as Error).message, 'upstream reset');
});

test('write() after the stop is ignored and reports the stop', async () => {
  const scanner = new HeadScanner({ blockSize: 16 });
  assert.is(await scanner.write(utf8('<head></head><body><meta property="og:title" content="late">')), true);
  assert.is(await scanner.write(utf8('<meta property="og:title" content="later">')), true);
  const result = await scanner.end();
  assert.equal(result.tags.metas, []);
});

test('an empty input gives empty tags', async () => {
  const result = await scanHead(new Uint8Array(0));
  assert.equal(result, {
    tags: { metas: [], title: null, links: [], baseHref: null, lang: null, scriptSrcs: [] },
    bytesConsumed: 0,
    stoppedAtBody: false,
    charset: 'utf-8',
  });
});

test('a 16 KB og:title attribute is read (the normaliser bounds it later)', async () => {
  const big = 'x'.repeat(16 * 1024 - 100);
  const { tags } = await scanHead(utf8(`<head><meta property="og:title" content="${big}"></head><body>`));
  assert.is(tags.metas[0]?.content?.length, big.length);
});

test('a 1 MB og:title attribute ends the scan at its tag (markupLimit), without error: nothing after it is read', async () => {
  const big = 'x'.repeat(1024 * 1024);
  const scan = await scanHead(utf8(`<head><title>Before</title><meta property="og:title" content="${big}"><title>${big}</title></head><body>`));
  assert.equal([scan.tags.metas, scan.tags.title, scan.markupLimit, scan.stoppedAtBody], [[], 'Before', true, false]);
});

test('a flood of 2,000 metas of 1 KB of entities each: metas are read until READ_LIMITS.attributeChars, then the head ends there', async () => {
  const value = '&amp;'.repeat(200);
  const junk = `<meta name="description" content="${value}">`;
  const scan = await scanHead(utf8(`<head>${junk.repeat(2000)}<meta property="og:title" content="Too late"></head><body>`));
  // Each meta reads two attributes, "description" and the value.
  const perMeta = 'description'.length + value.length;
  assert.is(scan.tags.metas.length, Math.floor(READ_LIMITS.attributeChars / perMeta));
  assert.is(scan.tags.metas.at(-1)?.content, '&'.repeat(200));
  assert.equal([scan.markupLimit, scan.stoppedAtBody], [true, false]);
  assert.not.ok(scan.tags.metas.some((m) => m.property === 'og:title'));
});

test.run();
