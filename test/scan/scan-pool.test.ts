// The scan pool: a thread that dies or hangs costs only the scan it was running, the pool replaces
// it, and no other scan notices; a scan whose request gives up while it waits leaves the queue;
// a pooled scan answers exactly what an inline scan answers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ScanFailed } from '../../src/errors.js';
import { ClientLedger } from '../../src/fairness/client-ledger.js';
import { scanPage, type PageScanTask } from '../../src/scan/page-scan.js';
import { ScanPool } from '../../src/scan/scan-pool.js';

const FAILING_WORKER = new URL('./failing-worker.ts', import.meta.url);
const page = (html: string): PageScanTask => ({
  bytes: new TextEncoder().encode(html),
  contentType: 'text/html; charset=utf-8',
  pageUrl: 'https://site.test/a',
  requestedUrl: 'https://site.test/a',
  contentLanguage: null,
});
const ordinary = () => page('<html><head><title>Ordinary</title><meta property="og:image" content="/i.png"></head><body>');
const never = () => new AbortController().signal;

/** Resolves with the rejection's reason; fails when `promise` fulfils. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const pool = suite<{ pool: ScanPool; ledger: ClientLedger }>('a scan pool of two threads');

pool.before.each((ctx) => {
  ctx.ledger = new ClientLedger(() => 0);
  ctx.pool = new ScanPool({ size: 2, maxQueued: 8, ledger: ctx.ledger, workerUrl: FAILING_WORKER });
});
pool.after.each(async ({ pool }) => pool.close());

pool('a pooled scan answers exactly what an inline scan answers', async ({ pool }) => {
  const inline = await scanPage(ordinary());
  assert.equal(await pool.scan(ordinary(), 'client-a', never()), inline);
  assert.is(inline.og.title, 'Ordinary');
});

pool('the bytes are transferred to the thread, not copied: the caller’s buffer is detached', async ({ pool }) => {
  const task = ordinary();
  await pool.scan(task, null, never());
  assert.is(task.bytes.byteLength, 0);
});

pool('a thread that crashes fails its own scan with ScanFailed; the scan beside it and the next ones are answered', async ({ pool }) => {
  const [crashed, beside] = await Promise.allSettled([pool.scan(page('crash'), 'a', never()), pool.scan(ordinary(), 'b', never())]);
  assert.ok(crashed.status === 'rejected' && crashed.reason instanceof ScanFailed, 'the crash is its own scan’s error');
  assert.ok(beside.status === 'fulfilled' && beside.value.og.title === 'Ordinary');
  for (let i = 0; i < 4; i++) assert.is((await pool.scan(ordinary(), 'a', never())).og.title, 'Ordinary');
  assert.is(pool.size, 2, 'the dead thread was replaced');
});

pool('a thread that exits fails its own scan; the pool replaces it', async ({ pool }) => {
  assert.instance(await rejection(pool.scan(page('exit'), 'a', never())), ScanFailed);
  assert.is((await pool.scan(ordinary(), 'a', never())).og.title, 'Ordinary');
  assert.is(pool.size, 2);
});

pool('a scan that hangs is ended when its request gives up, with the request’s reason; the other thread never stopped answering', async ({ pool }) => {
  const deadline = new AbortController();
  const hung = pool.scan(page('hang'), 'a', deadline.signal);
  // The other thread answers while the first is stuck.
  assert.is((await pool.scan(ordinary(), 'b', never())).og.title, 'Ordinary');
  const reason = new Error('the request deadline passed');
  deadline.abort(reason);
  assert.is(await rejection(hung), reason);
  const again = await Promise.all([pool.scan(ordinary(), 'a', never()), pool.scan(ordinary(), 'b', never())]);
  assert.equal(
    again.map((scan) => scan.og.title),
    ['Ordinary', 'Ordinary'],
  );
  assert.is(pool.size, 2);
});

pool('a scan whose request gives up while it waits for a thread leaves the queue, and costs nothing', async ({ pool }) => {
  const deadlines = [new AbortController(), new AbortController()];
  // Both threads held by hanging scans.
  const held = deadlines.map((d) => pool.scan(page('hang'), 'busy', d.signal).catch(() => 'ended'));
  const waiting = new AbortController();
  const queued = pool.scan(ordinary(), 'waiter', waiting.signal);
  assert.is(pool.queue.queued, 1);
  waiting.abort(new Error('gave up'));
  assert.is(((await rejection(queued)) as Error).message, 'gave up');
  assert.is(pool.queue.queued, 0);
  for (const d of deadlines) d.abort(new Error('done'));
  assert.equal(await Promise.all(held), ['ended', 'ended']);
});

pool('each scan’s time is charged to its client in the ledger', async ({ pool, ledger }) => {
  await pool.scan(ordinary(), 'client-a', never());
  assert.ok(ledger.decayed('client-a') > 0);
  assert.is(ledger.decayed('client-b'), 0);
});

pool('a scan is charged its time on the thread, not the time its answer waited for the pool’s busy event loop', async ({ pool, ledger }) => {
  await pool.scan(ordinary(), 'warm', never()); // a thread started, and idle again
  // A head of 20,000 tags: a few ms on any machine, where the ordinary page's fraction of a ms fell
  // below what the ledger keeps (0.5 ms) on a fast one.
  const scanned = pool.scan(page(`<html><head><title>Longer</title>${'<meta name="n" content="c">'.repeat(20_000)}</head><body>`), 'client-a', never());
  await new Promise((resolve) => setImmediate(resolve)); // the task is posted to a thread
  // The thread answers while this loop cannot read it: blocked, not spinning, so that the thread
  // has a core (a spinning loop starved it on a loaded 2-core machine: 414 ms charged).
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
  await scanned;
  const charged = ledger.decayed('client-a');
  assert.ok(charged > 0 && charged < 300, `${charged} ms charged`);
});

pool.run();

const kept = suite<{ pool: ScanPool; ledger: ClientLedger }>('a scan pool of one shared thread and one kept for light clients');

kept.before.each(async (ctx) => {
  ctx.ledger = new ClientLedger(() => 0);
  ctx.ledger.charge('heavy', 500, 5); // 10 slots of recent scan time
  ctx.pool = new ScanPool({ size: 1, maxQueued: 8, ledger: ctx.ledger, workerUrl: FAILING_WORKER, lightThread: true });
  await ctx.pool.ready; // a scan waiting for a thread to start is charged the wait
});
kept.after.each(async ({ pool }) => pool.close());

/** A scan of `client` that hangs until the returned function ends it, and its outcome. */
function hanging(pool: ScanPool, client: string): { end: () => void; outcome: Promise<unknown> } {
  const deadline = new AbortController();
  const outcome = pool.scan(page('hang'), client, deadline.signal).catch((err: unknown) => err);
  return { end: () => deadline.abort(new Error('ended')), outcome };
}

kept('a light client’s page is scanned at once while a heavy client’s scan holds the shared thread', async ({ pool, ledger }) => {
  const heavy = hanging(pool, 'heavy');
  assert.is((await pool.scan(ordinary(), 'light', never())).og.title, 'Ordinary');
  ledger.charge('steady', 75, 15); // 1.5 slots, 5 ms a page: a page every 2 s weighs about one
  assert.is((await pool.scan(ordinary(), 'steady', never())).og.title, 'Ordinary');
  assert.is(pool.queue.queued, 0);
  heavy.end();
  assert.is(((await heavy.outcome) as Error).message, 'ended');
});

kept('a page longer than 256 KiB never takes the kept thread, whoever asks it: it waits for the shared one', async ({ pool }) => {
  const heavy = hanging(pool, 'heavy');
  const long = pool.scan(page(`<html><head><title>Long</title><style>${'x'.repeat(256 * 1024)}</style></head>`), 'light', never());
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(pool.queue.queued, 1, 'the long page waits, the kept thread idle');
  assert.is((await pool.scan(ordinary(), 'other-light', never())).og.title, 'Ordinary', 'a short page of a light client takes the kept thread');
  heavy.end();
  assert.is((await long).og.title, 'Long');
});

kept(
  'a heavy client’s page never takes the kept thread, nor that of a client weighing little whose pages lately took long to scan: they wait for the shared one',
  async ({ pool, ledger }) => {
    ledger.charge('costly', 60, 1); // 1.2 slots, 60 ms a page
    for (const client of ['heavy', 'costly']) {
      const held = hanging(pool, 'heavy');
      const waiting = pool.scan(ordinary(), client, never());
      await new Promise((resolve) => setImmediate(resolve));
      assert.is(pool.queue.queued, 1, `the ${client} client's page waits, the kept thread idle`);
      held.end();
      assert.is((await waiting).og.title, 'Ordinary');
    }
  },
);

kept('a light client’s page waits in the queue like any other while the kept thread is busy, and is served first there', async ({ pool }) => {
  const light = hanging(pool, 'light'); // on the kept thread
  const heavy = hanging(pool, 'heavy'); // on the shared thread
  const heavyNext = pool.scan(ordinary(), 'heavy', never());
  const lightNext = pool.scan(ordinary(), 'other-light', never());
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(pool.queue.queued, 2);
  heavy.end();
  const first = await Promise.race([lightNext.then(() => 'light'), heavyNext.then(() => 'heavy')]);
  assert.is(first, 'light', 'the client using least is granted the shared thread first');
  await heavyNext;
  light.end();
  await light.outcome;
});

kept('the kept thread, when a page crashes it, fails that scan alone and is replaced', async ({ pool }) => {
  assert.instance(await rejection(pool.scan(page('crash'), 'crasher', never())), ScanFailed);
  const heavy = hanging(pool, 'heavy');
  let answered = null;
  for (let i = 0; i < 100 && answered === null; i++) {
    // Its replacement starts in the background: until then a light page waits for the shared
    // thread (held), and is taken back from the queue, at no cost, to try again.
    const attempt = new AbortController();
    const scanned = pool.scan(ordinary(), 'light', attempt.signal);
    await new Promise((resolve) => setImmediate(resolve));
    if (pool.queue.queued === 0) answered = (await scanned).og.title;
    else {
      attempt.abort(new Error('not yet'));
      await scanned.catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  assert.is(answered, 'Ordinary', 'a light page scanned while the shared thread is held');
  heavy.end();
  await heavy.outcome;
});

kept.run();
