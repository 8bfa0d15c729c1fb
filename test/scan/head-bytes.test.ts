// Reading a head until a `<body` has come: the bytes returned are every byte read, reading stops
// with the chunk in which a `<body` ends however the body is cut (or, once, where a head too dense
// in tags to be real passes the early stop), and goes on to the next one (or to the end) when asked.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DENSE_TAG_OPENS, EARLY_STOP_BYTES, HeadBytes } from '../../src/scan/head-bytes.js';
import { mulberry32 } from '../helpers/prng.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A body of the given chunks, counting how many were pulled. */
function body(chunks: string[]): { source: AsyncIterable<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  return {
    source: (async function* () {
      for (const chunk of chunks) {
        pulled++;
        yield new TextEncoder().encode(chunk);
      }
    })(),
    pulled: () => pulled,
  };
}

const page = '<html><head><title>T</title></head><body><p>rest</p></body></html>';

test('reading stops with the chunk in which <body ends, wherever the chunks are cut (every cut in two, and random cuts)', async () => {
  for (let cut = 1; cut < page.length; cut++) {
    const { source, pulled } = body([page.slice(0, cut), page.slice(cut), 'never pulled']);
    const bytes = await new HeadBytes(source).next();
    const bodyEnds = page.indexOf('<body') + '<body'.length;
    assert.is(text(bytes), cut >= bodyEnds ? page.slice(0, cut) : page, `cut at ${cut}`);
    assert.is(pulled(), cut >= bodyEnds ? 1 : 2);
  }
  const random = mulberry32(11);
  for (let round = 0; round < 200; round++) {
    const chunks: string[] = [];
    for (let at = 0; at < page.length;) {
      const size = 1 + Math.floor(random() * 6);
      chunks.push(page.slice(at, at + size));
      at += size;
    }
    const read = text(await new HeadBytes(body([...chunks, 'never pulled']).source).next());
    assert.ok(read.includes('<body') && !read.includes('never pulled'), read);
  }
});

test('<BODY and <Body stop the reading too', async () => {
  for (const tag of ['<BODY>', '<Body class=x>']) {
    const { source, pulled } = body(['<title>T</title>', tag, 'after']);
    assert.is(text(await new HeadBytes(source).next()), `<title>T</title>${tag}`);
    assert.is(pulled(), 2);
  }
});

test('asked again (the <body was in a comment), it reads on to the next <body; with toEnd, to the end', async () => {
  const head = new HeadBytes(body(['<!-- <body> -->', '<title>T</title>', '<body>', 'a', '<body>', 'b']).source);
  assert.is(text(await head.next()), '<!-- <body> -->');
  assert.is(text(await head.next()), '<!-- <body> --><title>T</title><body>');
  assert.is(head.ended, false);
  assert.is(text(await head.next(true)), '<!-- <body> --><title>T</title><body>a<body>b');
  assert.is(head.ended, true);
});

test('a page with no <body is read to its end', async () => {
  const head = new HeadBytes(body(['<title>T</title>', '<p>no body tag</p>']).source);
  assert.is(text(await head.next()), '<title>T</title><p>no body tag</p>');
  assert.is(head.ended, true);
});

test('a head dense in tags stops the reading once, at the early stop; asked again, it reads on to <body', async () => {
  const chunk = '<i>'.repeat(8 * 1024); // 24 KB, 8,192 tag openings
  const chunks = Array.from({ length: 12 }, () => chunk);
  const { source, pulled } = body([...chunks, '<body>', 'after']);
  const head = new HeadBytes(source);
  const first = await head.next();
  assert.is(first.length, Math.ceil(EARLY_STOP_BYTES / chunk.length) * chunk.length, 'stopped with the chunk that reached the early stop');
  assert.is(pulled(), Math.ceil(EARLY_STOP_BYTES / chunk.length));
  assert.is(text(await head.next()), chunks.join('') + '<body>', 'only once: the next stop is the <body');
});

test('a long head with fewer tag openings than a scan bound needs is read on to <body', async () => {
  const chunk = `<i>${'x'.repeat(8 * 1024)}`; // one tag opening in 8 KB
  const chunks = Array.from({ length: 40 }, () => chunk);
  const head = new HeadBytes(body([...chunks, '<body>', 'after']).source);
  assert.is(text(await head.next()), chunks.join('') + '<body>');
  assert.ok(chunks.length * chunk.length > EARLY_STOP_BYTES && chunks.length < DENSE_TAG_OPENS);
});

test('each call returns a buffer of its own (it may be transferred)', async () => {
  const head = new HeadBytes(body(['<title>T</title><body>']).source);
  const bytes = await head.next();
  assert.is(bytes.byteOffset, 0);
  assert.is(bytes.byteLength, bytes.buffer.byteLength);
});

test.run();
