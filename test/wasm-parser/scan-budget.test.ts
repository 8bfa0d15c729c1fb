// The scan's time budget, its turns of the event loop and the long-tag bound, on a clock the test
// drives: every reading of it moves it on by `step` ms, so how much a scan spends depends only on
// how many pieces it writes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import iconv from 'iconv-lite';
import { FIRST_SLICE_MS, scanHead, ScanTurns, SLICE_MS } from '../../wasm-parser/index.js';
import { LONG_TAG_BYTES } from '../../wasm-parser/collect-limits.js';
import { trackedSource, utf8 } from './cuts.js';

/** A clock that moves on by `step` ms each time it is read. */
function steppingClock(step: number) {
  let now = 0;
  return () => (now += step);
}

/** Scan options with a budget, wall and CPU time read from one fresh stepping clock. */
function budgeted(budgetMs: number, step = 1) {
  const clock = steppingClock(step);
  return { budgetMs, clock, cpuClock: clock };
}

const TOP = '<html><head><title>Top</title><meta property="og:title" content="First">';
const LATE = '<meta property="og:description" content="Late">';
/** A head whose first block holds the title and og:title, then 400 KB of tags, then a late meta. */
const heavy = utf8(`${TOP}${'<i>'.repeat((400 * 1024) / 3)}${LATE}</head><body>`);

const contents = (metas: { property: string | null; content: string | null }[]) => metas.map((m) => [m.property, m.content]);

test('a scan past its budget stops and answers from the tags found so far', async () => {
  const result = await scanHead(heavy, budgeted(10));
  assert.is(result.overBudget, true);
  assert.is(result.stoppedAtBody, false);
  assert.is(result.tags.title, 'Top');
  assert.equal(contents(result.tags.metas), [['og:title', 'First']]);
  assert.ok(result.bytesConsumed < heavy.length, 'the rest of the head was never read');
});

test('within its budget the same page is read to <body>, with no overBudget mark', async () => {
  const result = await scanHead(heavy, budgeted(100_000));
  assert.is(result.overBudget, undefined);
  assert.is(result.stoppedAtBody, true);
  assert.equal(contents(result.tags.metas), [
    ['og:title', 'First'],
    ['og:description', 'Late'],
  ]);
});

test('the same budget on the same clock cuts the scan at the same place however the input is cut', async () => {
  const whole = await scanHead(heavy, budgeted(10));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < heavy.length; at += 7000) chunks.push(heavy.slice(at, at + 7000));
  const cut = await scanHead(trackedSource(chunks).source, budgeted(10));
  assert.equal(cut, whole);
  assert.is(whole.overBudget, true);
});

test('a scan over budget stops pulling from its source and releases it', async () => {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < heavy.length; at += 4096) chunks.push(heavy.slice(at, at + 4096));
  const { source, state } = trackedSource(chunks);
  const result = await scanHead(source, budgeted(5));
  assert.is(result.overBudget, true);
  assert.ok(state.pulled < chunks.length);
  assert.is(state.returned, true);
});

test('both passes of a charset re-scan count against one budget', async () => {
  // Not UTF-8 at once (windows-1252 for now), then `<meta charset>` at the end: a second pass.
  const page = Buffer.concat([
    iconv.encode(`<html><head><title>Café</title>${'<i>'.repeat(20_000)}<meta charset="shift_jis">`, 'windows-1252'),
    utf8('</head><body>'),
  ]);
  let onePass = 0;
  let twoPasses = 0;
  await scanHead(new Uint8Array(page), { ...budgeted(Infinity), contentType: 'text/html; charset=windows-1252', onScanTime: (ms) => (onePass = ms) });
  const read = await scanHead(new Uint8Array(page), { ...budgeted(Infinity), onScanTime: (ms) => (twoPasses = ms) });
  assert.is(read.charset, 'shift_jis');
  assert.ok(twoPasses > onePass, `the re-scan is counted (${twoPasses} ms against ${onePass} ms for one pass)`);
  const cut = await scanHead(new Uint8Array(page), budgeted(onePass + 1));
  assert.is(cut.overBudget, true);
});

test('a scan that spends a slice of time lets other work run before it goes on', async () => {
  const order: string[] = [];
  setImmediate(() => order.push('other work'));
  // The clock is read once at each end of a piece: each takes three quarters of a slice here, so
  // the scan yields after the second.
  const clock = steppingClock((SLICE_MS * 3) / 4);
  const scanning = scanHead(heavy, { clock, cpuClock: clock }).then(() => order.push('scan'));
  await scanning;
  assert.equal(order, ['other work', 'scan']);
});

test('a scan given a first slice of FIRST_SLICE_MS yields first after it (an ordinary head at one go), then after each slice', async () => {
  const told: number[] = [];
  const step = (SLICE_MS * 3) / 4;
  const clock = steppingClock(step);
  await scanHead(heavy, { clock, cpuClock: clock, firstSliceMs: FIRST_SLICE_MS, turns: new ScanTurns(), onCharge: (ms) => told.push(ms) });
  // Told before each turn: the time since the last one, a piece (one step) at a time.
  assert.ok(told[0]! >= FIRST_SLICE_MS && told[0]! < FIRST_SLICE_MS + step, `first stretch ${told[0]} ms`);
  assert.ok(told[1]! >= SLICE_MS && told[1]! < SLICE_MS + step, `next stretch ${told[1]} ms`);
});

test('without a first slice of its own, a scan yields first after SLICE_MS', async () => {
  const told: number[] = [];
  const step = (SLICE_MS * 3) / 4;
  const clock = steppingClock(step);
  await scanHead(heavy, { clock, cpuClock: clock, turns: new ScanTurns(), onCharge: (ms) => told.push(ms) });
  assert.ok(told[0]! >= SLICE_MS && told[0]! < SLICE_MS + step, `first stretch ${told[0]} ms`);
});

test('heavy heads: a scan held back at its start by the bound yields after SLICE_MS, whatever first slice it was given', async () => {
  const told: number[] = [];
  const step = (SLICE_MS * 3) / 4;
  const clock = steppingClock(step);
  // One place among the active scans, taken by a scan of the same client: the new scan waits before its first piece.
  const turns = new ScanTurns({ maxActive: 1, cost: () => 10 });
  const other = turns.ticket('attacker');
  await turns.turn(other);
  assert.is(turns.active, 1);
  const scanning = scanHead(heavy, { clock, cpuClock: clock, firstSliceMs: FIRST_SLICE_MS, turns, client: 'attacker', onCharge: (ms) => told.push(ms) });
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(turns.waiting, 1, 'held back before its first piece');
  assert.equal(told, []);
  turns.end(other);
  await scanning;
  assert.ok(told[0]! >= SLICE_MS && told[0]! < SLICE_MS + step, `first stretch ${told[0]} ms`);
});

test('a scan whose pieces take no time never yields (a short head pays for no turn)', async () => {
  const order: string[] = [];
  setImmediate(() => order.push('other work'));
  const still = () => 0;
  await scanHead(heavy, { clock: still, cpuClock: still }).then(() => order.push('scan'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(order, ['scan', 'other work']);
});

test('a scan tells its time before each turn it waits for and at its end, all of it once', async () => {
  const told: number[] = [];
  let scanMs = 0;
  const clock = steppingClock((SLICE_MS * 3) / 4);
  await scanHead(heavy, { clock, cpuClock: clock, onCharge: (ms) => told.push(ms), onScanTime: (ms) => (scanMs = ms) });
  assert.ok(told.length > 2, `told while it ran (${told.length} times)`);
  assert.is(
    told.reduce((sum, ms) => sum + ms, 0),
    scanMs,
  );
});

test('a head that never waits for a turn is charged once, when its scan ends', async () => {
  const told: number[] = [];
  const clock = steppingClock(SLICE_MS / 100);
  await scanHead(utf8(`${TOP}${LATE}</head><body>`), { clock, cpuClock: clock, onCharge: (ms) => told.push(ms) });
  assert.is(told.length, 1);
});

test('a <meta> of a megabyte of attributes is skipped unread; the tags around it count', async () => {
  const page = utf8(`${TOP}<meta name="description" ${'a '.repeat(512 * 1024)}content="Flood">${LATE}</head><body>`);
  const { tags } = await scanHead(page);
  assert.equal(contents(tags.metas), [
    ['og:title', 'First'],
    ['og:description', 'Late'],
  ]);
});

test('a <meta> of half a megabyte of attributes with ">" and "<" in their quoted values is skipped unread', async () => {
  const page = utf8(`${TOP}<meta name="description" ${'a=">" b="<" '.repeat(50_000)}content="Flood">${LATE}</head><body>`);
  const { tags } = await scanHead(page);
  assert.equal(contents(tags.metas), [
    ['og:title', 'First'],
    ['og:description', 'Late'],
  ]);
});

for (const tag of ['link rel=icon href=/flood.ico', 'base href=/flood/', 'html lang=flood', 'script src=/flood.js']) {
  test(`a <${tag.split(' ')[0]}> of a megabyte of attributes is skipped unread`, async () => {
    const page = utf8(`<head><title>Top</title><${tag} ${'a '.repeat(512 * 1024)}></head><body>`);
    const { tags } = await scanHead(page);
    assert.equal([tags.links, tags.baseHref, tags.lang, tags.scriptSrcs, tags.title], [[], null, null, [], 'Top']);
  });
}

test(`a start tag just under ${LONG_TAG_BYTES} bytes is read`, async () => {
  const filler = ' data-x="y"'.repeat(Math.floor((LONG_TAG_BYTES - 100) / 11));
  const { tags } = await scanHead(utf8(`<head><meta property="og:title"${filler} content="Long but real"></head><body>`));
  assert.equal(contents(tags.metas), [['og:title', 'Long but real']]);
});

test.run();
