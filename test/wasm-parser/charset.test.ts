// Any charset, aiming at readable text: BOM, then valid UTF-8, then the HTTP charset,
// then the page's declaration (also after 1024 bytes), else windows-1252.
import { mediaTypeCharset } from '../../src/media-type.js';
import iconv from 'iconv-lite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HeadScanner, scanHead } from '../../wasm-parser/index.js';
import { charsetOfMetaContent, encodingForDeclaredLabel, encodingForLabel, firstInvalidUtf8, incompleteUtf8Tail } from '../../wasm-parser/charset.js';
import { bomPages, encodedPages } from './encoded-pages.js';
import { utf8 } from './cuts.js';

const descriptionOf = (metas: { name: string | null; content: string | null }[]) => metas.find((m) => m.name === 'description')?.content;

for (const page of [...encodedPages, ...bomPages]) {
  test(`reads ${page.name} as ${page.charset}`, async () => {
    const result = await scanHead(page.bytes, { httpCharset: mediaTypeCharset(page.contentType) });
    assert.is(result.charset, page.charset);
    assert.is(result.tags.title, page.title);
    assert.is(descriptionOf(result.tags.metas), page.description);
    assert.is(result.stoppedAtBody, true);
  });
}

test('a mid-head charset change re-scans the held bytes: metas before the change are kept once', async () => {
  const page = encodedPages.find((p) => p.name.startsWith('the choice changes mid-head'))!;
  const { tags } = await scanHead(page.bytes);
  assert.equal(
    tags.metas.filter((m) => m.property === 'og:site_name').map((m) => m.content),
    ['ascii site'],
  );
  assert.is(tags.metas.length, 4);
});

for (const kind of ['Uint8Array', 'Buffer'] as const) {
  test(`the caller may reuse its buffer (${kind}) between writes, even when a charset change re-scans held bytes`, async () => {
    const page = encodedPages.find((p) => p.name.startsWith('the choice changes mid-head'))!;
    const whole = await scanHead(page.bytes);
    const scanner = new HeadScanner();
    // A Buffer's slice() is a view, not a copy: the scanner must copy what it holds either way.
    const buffer = kind === 'Buffer' ? Buffer.alloc(4096) : new Uint8Array(4096);
    for (let at = 0; at < page.bytes.length; at += buffer.length) {
      const piece = page.bytes.subarray(at, at + buffer.length);
      buffer.set(piece);
      if (await scanner.write(buffer.subarray(0, piece.length))) break;
      buffer.fill(0x3f); // what a reusing producer would leave behind
    }
    assert.equal(await scanner.end(), whole);
  });
}

test('bytes after <body> cannot change the charset: an invalid UTF-8 byte in the body keeps a UTF-8 head', async () => {
  const head = utf8('<html><head><title>Café – 日本</title><meta charset="windows-1252"></head><body><p>');
  const bytes = new Uint8Array([...head, 0xe9, 0x20, 0xff, ...utf8('</p></body>')]);
  for (const blockSize of [16, 2048]) {
    const scanner = new HeadScanner({ blockSize });
    await scanner.write(bytes);
    const result = await scanner.end();
    assert.is(result.charset, 'utf-8', `blocks of ${blockSize}`);
    assert.is(result.tags.title, 'Café – 日本');
    assert.is(result.stoppedAtBody, true);
  }
});

test('a UTF-8 page with one stray byte, declared UTF-8, stays UTF-8: one U+FFFD, no mojibake', async () => {
  const bytes = new Uint8Array([...utf8('<meta charset="utf-8"><title>Café '), 0xff, ...utf8(' – 日本</title><body>')]);
  const result = await scanHead(bytes);
  assert.is(result.charset, 'utf-8');
  assert.is(result.tags.title, 'Café \ufffd – 日本');
});

test('windows-1252 text labelled UTF-8 (HTTP and meta) reads as windows-1252: no multi-byte UTF-8 in it', async () => {
  const bytes = iconv.encode('<meta charset="utf-8"><title>Café Ünïcode – ok</title><body>', 'windows-1252');
  const result = await scanHead(new Uint8Array(bytes), { httpCharset: 'utf-8' });
  assert.is(result.charset, 'windows-1252');
  assert.is(result.tags.title, 'Café Ünïcode – ok');
});

test('the HTTP charset is read as media types are: a stray semicolon after it leaves it standing', async () => {
  const bytes = iconv.encode('<title>Привет, мир</title><body>', 'windows-1251');
  const result = await scanHead(new Uint8Array(bytes), { httpCharset: 'windows-1251' });
  assert.is(result.charset, 'windows-1251');
  assert.is(result.tags.title, 'Привет, мир');
});

test('the same stray byte with no declaration at all gives windows-1252 (the last resort)', async () => {
  const bytes = new Uint8Array([...utf8('<title>x '), 0xe9, ...utf8('</title><body>')]);
  const result = await scanHead(bytes);
  assert.is(result.charset, 'windows-1252');
  assert.is(result.tags.title, 'x é');
});

test('character references are decoded in a legacy-charset page too', async () => {
  const bytes = iconv.encode('<meta charset="windows-1252"><title>Caf&eacute; &amp; cr\u00e8me</title><body>', 'windows-1252');
  assert.is((await scanHead(new Uint8Array(bytes))).tags.title, 'Café & crème');
});

test('a UTF-8 character split across chunk edges is not a U+FFFD and does not change the charset', async () => {
  const bytes = utf8('<title>日本語 Ελληνικά 😀</title><body>');
  const oneByteChunks = (async function* () {
    for (const b of bytes) yield new Uint8Array([b]);
  })();
  const result = await scanHead(oneByteChunks);
  assert.is(result.tags.title, '日本語 Ελληνικά 😀');
  assert.is(result.charset, 'utf-8');
});

test('a UTF-8 sequence cut by the end of the input is dropped, not turned into windows-1252', async () => {
  const bytes = utf8('<title>Ελληνικά</title><meta name=a content="é');
  const result = await scanHead(bytes.subarray(0, bytes.length - 1));
  assert.is(result.charset, 'utf-8');
  assert.is(result.tags.title, 'Ελληνικά');
});

test("the charset in a meta content follows HTML's extraction algorithm", () => {
  assert.is(charsetOfMetaContent('text/html; charset=gb2312'), 'gb2312');
  assert.is(charsetOfMetaContent('text/html;charset = "windows-1251"'), 'windows-1251');
  assert.is(charsetOfMetaContent("text/html; charset='euc-jp'"), 'euc-jp');
  assert.is(charsetOfMetaContent('text/html; charsetx; charset=utf-8'), 'utf-8');
  assert.is(charsetOfMetaContent('text/html'), null);
  assert.is(charsetOfMetaContent('text/html; charset="unterminated'), null);
});

test('labels map to WHATWG encodings; UTF-16 declared in a page means UTF-8; unknown labels are null', () => {
  assert.is(encodingForLabel('Shift_JIS'), 'shift_jis');
  assert.is(encodingForLabel('gb2312'), 'gbk');
  assert.is(encodingForLabel('latin1'), 'windows-1252');
  assert.is(encodingForLabel('x-user-defined'), 'windows-1252');
  assert.is(encodingForLabel('no-such-charset'), null);
  assert.is(encodingForDeclaredLabel('utf-16'), 'utf-8');
});

test('the first invalid UTF-8 byte is found: overlongs, surrogates, stray continuations, cut sequences', () => {
  assert.is(firstInvalidUtf8(utf8('plain ascii and 日本 😀')), -1);
  assert.is(firstInvalidUtf8(new Uint8Array([0x61, 0xc0, 0x80])), 1); // overlong NUL
  assert.is(firstInvalidUtf8(new Uint8Array([0x61, 0x62, 0xed, 0xa0, 0x80])), 2); // a surrogate
  assert.is(firstInvalidUtf8(new Uint8Array([0x80])), 0); // a lone continuation byte
  assert.is(firstInvalidUtf8(new Uint8Array([0xe6, 0x97, 0x61])), 0); // a cut sequence
  assert.is(firstInvalidUtf8(new Uint8Array([0xf4, 0x90, 0x80, 0x80])), 0); // above U+10FFFF
  assert.is(firstInvalidUtf8(new Uint8Array([0x63, 0x61, 0x66, 0xe9])), 3); // windows-1252 é
});

test('an incomplete UTF-8 tail is measured from its lead byte', () => {
  assert.is(incompleteUtf8Tail(utf8('abc')), 0);
  assert.is(incompleteUtf8Tail(new Uint8Array([0x61, 0xe6])), 1);
  assert.is(incompleteUtf8Tail(new Uint8Array([0x61, 0xe6, 0x97])), 2);
  assert.is(incompleteUtf8Tail(utf8('日')), 0);
  assert.is(incompleteUtf8Tail(new Uint8Array([0xf0, 0x9f, 0x98])), 3);
  assert.is(incompleteUtf8Tail(new Uint8Array([0x61, 0xff])), 0);
});

test.run();
