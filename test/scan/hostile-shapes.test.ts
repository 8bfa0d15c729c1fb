// Pages built to cost as much as a 2 MB head can, one test per shape: each gets the same answer
// every time — scanned on this thread or on a scan thread, its bytes arriving in one piece or cut
// at random, read whole or as the service reads them (stopping early where a head is dense in
// tags) — and an answer, never an error. What bounds each one's work is a count of bytes, tags,
// attributes or characters (wasm-parser/collect-limits.ts), never a clock, so the answer cannot
// depend on the machine or its load. Their CPU cost is measured by npm run bench:scan-worst.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import iconv from 'iconv-lite';
import { ClientLedger } from '../../src/fairness/client-ledger.js';
import { EARLY_STOP_BYTES, HeadBytes, scanAsRead } from '../../src/scan/head-bytes.js';
import { scanPage, type PageScan, type PageScanTask } from '../../src/scan/page-scan.js';
import { ScanPool } from '../../src/scan/scan-pool.js';
import { COLLECT_LIMITS, READ_LIMITS } from '../../wasm-parser/collect-limits.js';
import { scanHead } from '../../wasm-parser/index.js';
import { mulberry32 } from '../helpers/prng.js';

const MB2 = 2 * 1024 * 1024;
const HEAD = '<!doctype html><html><head><meta property="og:title" content="Hostile">';
const utf8 = (text: string) => new TextEncoder().encode(text).subarray(0, MB2);
/** `unit` repeated to fill 2 MB after HEAD. */
const flood = (unit: string, before = HEAD) => utf8(before + unit.repeat(Math.ceil(MB2 / unit.length)));

const task = (bytes: Uint8Array, contentType = 'text/html; charset=utf-8'): PageScanTask => ({
  bytes,
  contentType,
  pageUrl: 'https://hostile.test/page',
  requestedUrl: 'https://hostile.test/page',
  contentLanguage: null,
});

/** The bytes as HeadBytes reads them from a body cut at random (seeded), to their end. */
async function readInRandomChunks(bytes: Uint8Array, seed: number): Promise<Uint8Array> {
  const random = mulberry32(seed);
  async function* body() {
    for (let at = 0; at < bytes.length;) {
      const size = 1 + Math.floor(random() * 100_000);
      yield bytes.slice(at, at + size);
      at += size;
    }
  }
  return new HeadBytes(body()).next(true);
}

/** The page as the service reads it, from a body cut at random (seeded): scanned at each stop of the reading. */
async function scanAsTheServiceReads(bytes: Uint8Array, seed: number, contentType?: string): Promise<{ scan: PageScan; read: number }> {
  const random = mulberry32(seed);
  let read = 0;
  async function* body() {
    for (let at = 0; at < bytes.length;) {
      const size = 1 + Math.floor(random() * 40_000);
      read += Math.min(size, bytes.length - at);
      yield bytes.slice(at, at + size);
      at += size;
    }
  }
  const scan = await scanAsRead(new HeadBytes(body()), (head) => scanPage(task(head, contentType)));
  return { scan, read };
}

const shapes = suite<{ pool: ScanPool }>('hostile shapes, each the same answer every time');
shapes.before(async (ctx) => {
  ctx.pool = new ScanPool({ size: 1, maxQueued: 4, ledger: new ClientLedger(() => 0) });
  await ctx.pool.ready;
});
shapes.after(async ({ pool }) => pool.close());

/** The page scanned three ways; all three answers identical, returned. */
async function sameEveryTime(pool: ScanPool, bytes: Uint8Array, contentType?: string): Promise<PageScan> {
  const inline = await scanPage(task(bytes.slice(), contentType));
  const pooled = await pool.scan(task(bytes.slice(), contentType), 'hostile', new AbortController().signal);
  const chunked = await scanPage(task(await readInRandomChunks(bytes, 7), contentType));
  assert.equal(pooled, inline, 'a scan thread answers what this thread answers');
  assert.equal(chunked, inline, 'however the bytes arrived');
  for (const seed of [1, 2, 3]) {
    assert.equal((await scanAsTheServiceReads(bytes, seed, contentType)).scan, inline, 'however far the reading went');
  }
  return inline;
}

shapes('2 MB of <title>x</title>: the first title, and the head ends at the tag bound', async ({ pool }) => {
  const page = flood('<title>x</title>', '<html><head>');
  const scan = await sameEveryTime(pool, page);
  assert.equal([scan.tags.title, scan.og.title, scan.markupLimit], ['x', 'x', true]);
  assert.ok((await scanAsTheServiceReads(page, 4)).read <= EARLY_STOP_BYTES + 40_000, 'the service reads no more than the early stop and a chunk');
});

shapes('&amp; × 2 MB inside one <title>: its text kept up to its bound, decoded', async ({ pool }) => {
  const scan = await sameEveryTime(pool, flood('&amp;', '<html><head><title>'));
  assert.ok(scan.tags.title !== null && /^&+$/.test(scan.tags.title) && scan.tags.title.length <= COLLECT_LIMITS.titleChars + 64 * 1024);
  assert.ok(scan.og.title !== null && scan.og.title.length <= 500);
  assert.is(scan.markupLimit, false);
});

shapes('1,000 metas of 1,900 characters: read until the characters bound, then the head ends there', async ({ pool }) => {
  const meta = `<meta name="description" content="${'d'.repeat(1900)}">`;
  const scan = await sameEveryTime(pool, utf8(HEAD + meta.repeat(1000)));
  assert.is(scan.tags.metas.length - 1, Math.floor((READ_LIMITS.attributeChars - 'og:title'.length - 'Hostile'.length) / ('description'.length + 1900)));
  assert.equal([scan.og.title, scan.markupLimit], ['Hostile', true]);
});

shapes('a single 2 MB attribute: the head ends at that tag, what came before it stands', async ({ pool }) => {
  const scan = await sameEveryTime(pool, utf8(`${HEAD}<meta name="description" content="${'a'.repeat(MB2)}">`));
  assert.equal([scan.og.title, scan.og.description, scan.markupLimit], ['Hostile', null, true]);
});

shapes('a 2 MB JSON-LD block: left out whole, the rest of the head read', async ({ pool }) => {
  const json = `{"@type":"Article","headline":"${'h'.repeat(MB2)}"}`;
  const page = utf8(`${HEAD}<script type="application/ld+json">${json}`.slice(0, MB2 - 100) + '</script></head><body>');
  const scan = await sameEveryTime(pool, page);
  assert.equal([scan.og.title, scan.markupLimit, scan.stoppedAtBody], ['Hostile', false, true]);
  assert.is((await scanHead(page)).tags.jsonLd, undefined, 'the block is not kept');
});

shapes('an unterminated comment: the head before it stands, no <body> is found in it', async ({ pool }) => {
  const scan = await sameEveryTime(pool, flood(`<body>${'x'.repeat(200)}`, `${HEAD}<!--`));
  assert.equal([scan.og.title, scan.stoppedAtBody, scan.markupLimit], ['Hostile', false, false]);
});

shapes('2 MB of nested <div>: the head ends at the tag bound', async ({ pool }) => {
  const scan = await sameEveryTime(pool, flood('<div>'));
  assert.equal([scan.og.title, scan.markupLimit], ['Hostile', true]);
});

shapes('the <i> flood: the head ends at the tag bound', async ({ pool }) => {
  const page = flood('<i>');
  const scan = await sameEveryTime(pool, page);
  assert.equal([scan.og.title, scan.markupLimit], ['Hostile', true]);
  assert.ok((await scanAsTheServiceReads(page, 4)).read <= EARLY_STOP_BYTES + 40_000, 'the service reads no more than the early stop and a chunk');
});

shapes('a head dense in tags but within the bound: read on past the early stop, the tags after it found', async ({ pool }) => {
  // 5,000 tags in the first 150 KB (past the early stop's count), 20,000 being the bound; og:image after them.
  const filler = `<i>${'t'.repeat(27)}`.repeat(5000);
  const page = utf8(`${HEAD}${filler}<meta property="og:image" content="https://hostile.test/late.png"></head><body>`);
  const scan = await sameEveryTime(pool, page);
  assert.equal([scan.og.title, scan.og.image?.url, scan.markupLimit, scan.stoppedAtBody], ['Hostile', 'https://hostile.test/late.png', false, true]);
});

shapes('a page that switches charset late: the whole head read again in the charset it declares, the same every time', async ({ pool }) => {
  const text = `<html><head><title>Café</title><!--${'x'.repeat(1024 * 1024)}--><meta charset="windows-1252"></head><body>`;
  const scan = await sameEveryTime(pool, new Uint8Array(iconv.encode(text, 'windows-1252')), 'text/html');
  assert.equal([scan.tags.title, scan.stoppedAtBody], ['Café', true]);
});

shapes.run();
