// Which pages are refused before they are fetched (src/engine/costly-pages.ts): only while head
// scans are crowded, and then only a client with a scan under way or with costly pages; and which
// clients' scans get a longer first slice. Turns run by hand and costs on a clock the test moves:
// no sleeps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIRST_SLICE_MS, ScanTurns, SLICE_MS } from '../../wasm-parser/index.js';
import { costlyPageMs, firstSliceFor, refusesCostlyPages } from '../../src/engine/costly-pages.js';
import { ClientCosts, COST_HALF_LIFE_MS } from '../../src/fetch/client-cost.js';
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { createMetadataPipeline } from '../../src/metadata/service.js';
import { cachedMetadata } from '../../src/cache/cached-metadata.js';
import { MemoryExtractionStore } from '../../src/cache/extraction-store.js';
import { testConfig } from '../fetch/harness.js';
import { respond, startUpstream } from '../helpers/upstream.js';

/** The scan budget's default: pages over 20 ms each are costly. */
const SCAN_BUDGET_MS = 30;
const COSTLY_PAGE_MS = costlyPageMs(SCAN_BUDGET_MS);

function world(maxActive = 1) {
  let now = 0;
  const costs = new ClientCosts(() => now);
  const scheduled: (() => void)[] = [];
  const turns = new ScanTurns({ maxActive, cost: (key) => costs.decayed(key), schedule: (run) => scheduled.push(run) });
  const runTurn = async () => {
    scheduled.shift()?.();
    await Promise.resolve();
  };
  /** A scan of `client` past its first piece and waiting for its next turn: it crowds the scans while it waits. */
  const scanning = async (client: string) => {
    const ticket = turns.ticket(client);
    assert.is(turns.first(ticket), null);
    void turns.turn(ticket);
    await runTurn(); // its first turn: now active
    void turns.turn(ticket); // waiting again
    return ticket;
  };
  return { costs, turns, refuses: refusesCostlyPages(turns, costs, SCAN_BUDGET_MS), scanning, advance: (ms: number) => (now += ms) };
}

test('heavy heads from many fresh addresses: while scans are crowded, a newcomer with a scan under way is refused its next page, a newcomer without one is not', async () => {
  const { turns, refuses, scanning } = world();
  assert.is(refuses('192.0.2.1'), false, 'nothing crowded: nobody is refused');
  const attacker = await scanning('192.0.2.1');
  assert.is(turns.crowded, true);
  assert.is(refuses('192.0.2.1'), true, 'its scan is under way and none of its pages has ended');
  assert.is(refuses('192.0.2.2'), false, 'a newcomer with no scan under way goes on');
  assert.is(refuses(undefined), false, "the service's own work is never refused");
  turns.end(attacker);
  assert.is(turns.crowded, false);
  assert.is(refuses('192.0.2.1'), false, 'its scan ended and none waits: served again');
});

test('while scans are crowded, a client whose pages are cheap goes on with scans under way (an integrator sending many at once)', async () => {
  const { costs, turns, refuses, scanning, advance } = world();
  costs.charge('192.0.2.5', 3 * 20, 20); // twenty pages lately, 3 ms each
  await scanning('192.0.2.1'); // crowds the scans
  void turns.first(turns.ticket('192.0.2.5')); // its scan begun, waiting at the bound
  assert.is(turns.scansOf('192.0.2.5'), 1);
  assert.is(turns.crowded, true);
  assert.is(refuses('192.0.2.5'), false, 'cheap pages: its next one is fetched');
  advance(10 * COST_HALF_LIFE_MS);
  assert.is(refuses('192.0.2.5'), true, 'no page ended lately: one scan at a time');
});

test('heavy heads: a client whose recent pages each cost more than a light page is refused only while scans are crowded', async () => {
  const { costs, turns, refuses, scanning, advance } = world();
  costs.charge('192.0.2.9', 3 * COSTLY_PAGE_MS, 2); // 1.5× the bar per page
  assert.is(costs.perPage('192.0.2.9'), 1.5 * COSTLY_PAGE_MS);
  assert.is(refuses('192.0.2.9'), false, 'scans are not crowded');
  const other = await scanning('192.0.2.1');
  assert.is(refuses('192.0.2.9'), true, 'crowded, and its pages are costly');
  costs.charge('192.0.2.9', 0, 2); // two cheap pages since: 0.75× the bar per page
  assert.is(refuses('192.0.2.9'), false, 'its pages are cheap again on average');
  costs.charge('192.0.2.8', 2 * COSTLY_PAGE_MS); // a scan under way cut short: no page ended yet
  assert.is(refuses('192.0.2.8'), true, 'cost with no page ended counts as one page');
  advance(10 * COST_HALF_LIFE_MS);
  assert.is(refuses('192.0.2.8'), false, 'the cost decays away');
  turns.end(other);
});

test('a client of an IPv6 /64 is one client: another address of the prefix with a scan under way is refused', async () => {
  const { refuses, scanning } = world();
  await scanning('2001:db8:1:2::/64');
  assert.is(refuses('2001:db8:1:2::77'), true);
  assert.is(refuses('2001:db8:1:3::77'), false);
});

test('the recent cost per page: CPU over pages ended, both halving with the cost', () => {
  let now = 0;
  const costs = new ClientCosts(() => now);
  assert.is(costs.perPage('a'), 0);
  costs.charge('a', 40, 1);
  costs.charge('a', 20, 1);
  assert.is(costs.perPage('a'), 30);
  now += COST_HALF_LIFE_MS;
  assert.is(costs.perPage('a'), 30, 'cost and pages halve together');
  assert.is(costs.decayed('a'), 30);
  costs.charge('a', 0, 1);
  assert.is(costs.perPage('a'), 15);
});

test("heavy heads from fresh addresses: a newcomer's scan yields after its first SLICE_MS; a client whose recent pages are cheap gets FIRST_SLICE_MS", () => {
  let now = 0;
  const costs = new ClientCosts(() => now);
  const firstSlice = firstSliceFor(costs);
  assert.is(firstSlice('192.0.2.1'), SLICE_MS, 'a newcomer');
  costs.charge('192.0.2.1', FIRST_SLICE_MS * 10, 10); // ten pages lately, each a first slice
  assert.is(firstSlice('192.0.2.1'), FIRST_SLICE_MS);
  costs.charge('192.0.2.1', 30, 1); // then one page at its budget: costlier than a first slice on average
  assert.is(firstSlice('192.0.2.1'), SLICE_MS);
  costs.charge('192.0.2.2', 30); // a heavy scan under way, no page ended yet
  assert.is(firstSlice('192.0.2.2'), SLICE_MS);
  now += 10 * COST_HALF_LIFE_MS;
  assert.is(firstSlice('192.0.2.1'), SLICE_MS, 'no page ended lately: a newcomer again');
  assert.is(firstSlice(undefined), FIRST_SLICE_MS, "the service's own work");
});

test('the pipeline gives each scan the first slice the rule sets for its client', async () => {
  // 400 KB of tiny tags: many pieces. Every reading of the clock moves it on by 3/4 ms, so a piece takes that long.
  const heavy = `<html><head><title>Heavy</title>${'<i>'.repeat(140_000)}</head><body>`;
  const up = await startUpstream({ routes: { '/heavy': respond(200, heavy, { 'content-type': 'text/html' }) } });
  const config = testConfig({});
  const fetcher = createSafeFetch(config);
  let now = 0;
  const firstCharges: Record<string, number> = {};
  const pipeline = createMetadataPipeline({
    config,
    safeFetch: fetcher.safeFetch,
    scanClock: () => (now += 0.75),
    scanTurns: new ScanTurns(),
    firstSliceMs: (client) => (client === '192.0.2.1' ? FIRST_SLICE_MS : SLICE_MS),
    onScanCost: (client, ms) => void (firstCharges[client!] ??= ms),
  });
  const metadata = cachedMetadata(pipeline, { config, store: new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 }) });
  try {
    await metadata.get(up.url('/heavy?a'), 'og', '192.0.2.1');
    await metadata.get(up.url('/heavy?b'), 'og', '192.0.2.2');
    assert.equal(firstCharges, { '192.0.2.1': FIRST_SLICE_MS + 0.5, '192.0.2.2': SLICE_MS + 0.5 });
  } finally {
    await fetcher.close();
    await up.close();
  }
});

test('a refused page is answered Overloaded before it is fetched; the other clients are fetched and served', async () => {
  const up = await startUpstream({ routes: { '/p': respond(200, '<title>Page</title>', { 'content-type': 'text/html' }) } });
  const config = testConfig({});
  const fetcher = createSafeFetch(config);
  const metadata = cachedMetadata(createMetadataPipeline({ config, safeFetch: fetcher.safeFetch, refusesPage: (client) => client === '192.0.2.1' }), {
    config,
    store: new MemoryExtractionStore({ maxEntries: 10, maxBytes: 1 << 20 }),
  });
  try {
    const refused = await metadata.get(up.url('/p?a'), 'og', '192.0.2.1').then(
      () => null,
      (err: Error & { code?: string }) => [err.code, err.message],
    );
    assert.equal(refused, ['OVERLOADED', 'The service is busy; retry in a second.']);
    assert.is(up.hits('/p'), 0, 'never fetched');
    assert.is((await metadata.get(up.url('/p?b'), 'og', '192.0.2.2')).metadata.title, 'Page');
    assert.is(up.hits('/p'), 1);
  } finally {
    await fetcher.close();
    await up.close();
  }
});

test.run();
