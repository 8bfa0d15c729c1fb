import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream, type UpstreamResponse } from '../helpers/upstream.js';
import { until } from '../helpers/until.js';

// Fetch slots shared fairly, end to end: the client's address reaches safeFetch from every
// handler (metadata pages, their image and favicon probes, the image proxy), /healthz reports the
// slots, and a failure of our own saturation is never remembered as the page's.

const html = { 'content-type': 'text/html' };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx {
  up: Upstream;
  /**
   * Cuts every /hang response, and each one asked for from now on: once a test has read the
   * slots, its held fetches fail at once instead of at their deadline (not what most tests test).
   */
  cutHung(): void;
}
const shares = suite<Ctx>('fetch slots shared between clients');
/** How long /slowish takes: most of the 2 s deadline of the queued-deadline test, so a fetch that waited for a slot cannot finish in what is left, while a fresh one can. */
const SLOWISH_MS = 1_200;
shares.before.each(async (ctx) => {
  const hung: UpstreamResponse[] = [];
  let cutting = false;
  ctx.cutHung = () => {
    cutting = true;
    for (const res of hung.splice(0)) res.destroy();
  };
  ctx.up = await startUpstream({
    routes: {
      // Never answers: holds its fetch slot until the deadline, or until the test cuts it.
      '/hang': (_req, res) => void (cutting ? res.destroy() : hung.push(res)),
      '/p': respond(200, '<title>P</title>', html),
      '/img.png': respond(200, PNG, { 'content-type': 'image/png' }),
      '/with-hanging-image': respond(200, '<head><title>I</title><meta property="og:image" content="/hang"><link rel="icon" href="/img.png"></head>', html),
      '/slowish': async (_req, res) => {
        // Real time on purpose: the fetch deadline runs on the real clock, and whether a page this
        // slow fits in what a queued fetch has left of it is what is tested.
        await sleep(SLOWISH_MS);
        res.writeHead(200, html);
        res.end('<title>Slowish</title>');
      },
    },
  });
});
shares.after.each(async ({ up }) => {
  await up.close();
});

const meta = (up: Upstream, path: string) => `/v1/metadata?${new URLSearchParams({ url: up.url(path).href })}`;
const as = (svc: Service, path: string, n: number) => svc.request(path, { localAddress: `127.0.0.${n}` });
const fetches = async (svc: Service) => (await svc.request('/healthz')).json;

/** Polls /healthz until `ok` says yes (at most 5 s); returns that report. */
async function healthWhen(svc: Service, ok: (h: any) => boolean): Promise<any> {
  let h = await fetches(svc);
  await until(async () => ok((h = await fetches(svc))), '/healthz to report it', 5_000);
  return h;
}

// Each held fetch ends at its deadline; the checks made while it is held take milliseconds.
const ENV = { RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', MAX_FETCHES_PER_CLIENT: '2', FETCH_TIMEOUT_MS: '1500' };

shares("a client's slow pages wait in its own share; another client's page answers at once", async ({ up, cutHung }) => {
  const svc = await startService(ENV);
  try {
    // Settled as they come: an assertion failing below closes the service under them, and their
    // rejections must not end the file before that failure is reported.
    const slow = Promise.all([1, 2, 3].map((i) => as(svc, meta(up, `/hang?${i}`), 71).catch((err: Error) => err)));
    const h = await healthWhen(svc, (h) => h.upstream_fetches.capped === 1);
    // Both granted at once (a wait of 0); the third waits on its own client's share, not counted.
    assert.equal(h.upstream_fetches, { in_flight: 2, max_in_flight: 2048, queued: 0, capped: 1, saturated: false, wait_ms: { p50: 0, p90: 0, max: 0 } });
    // No fetch rule trips (a client held back by its own share is no saturation). The event loop's
    // delay is the machine's: with both cores loaded it passes its bound whoever holds the slots.
    assert.equal(
      h.degraded_by.filter((rule: string) => rule !== 'event_loop'),
      [],
      'a client held back by its own share is no saturation',
    );
    const other = await as(svc, meta(up, '/p'), 72);
    assert.equal([other.status, other.json.title], [200, 'P']);
    cutHung();
    assert.ok((await slow).every((r) => !(r instanceof Error) && r.status === 422));
  } finally {
    await svc.close();
  }
});

shares("the image proxy charges the client's share too", async ({ up }) => {
  const svc = await startService(ENV);
  try {
    const proxy = (path: string) => `/v1/cors-proxy?${new URLSearchParams({ url: up.url(path).href })}`;
    const slow = Promise.all([1, 2, 3].map((i) => as(svc, proxy(`/hang?${i}`), 73).catch((err: Error) => err)));
    const h = await healthWhen(svc, (h) => h.upstream_fetches.capped === 1);
    assert.equal([h.upstream_fetches.in_flight, h.upstream_fetches.capped], [2, 1]);
    const other = await as(svc, proxy('/img.png'), 74);
    assert.is(other.status, 200);
    assert.ok((await slow).every((r) => !(r instanceof Error) && r.status === 504));
  } finally {
    await svc.close();
  }
});

shares('image and favicon probes are charged to the client whose request started the extraction', async ({ up, cutHung }) => {
  const svc = await startService({ ...ENV, PROBE_IMAGES: 'true', MAX_FETCHES_PER_CLIENT: '1', ENRICH_BUDGET_MS: '1500' });
  try {
    const first = as(svc, meta(up, '/with-hanging-image'), 75);
    // The page is read; its og:image probe hangs and holds the client's one slot (the favicon
    // probe waits behind it), so the same client's next page waits too...
    await healthWhen(svc, (h) => h.upstream_fetches.in_flight === 1 && h.upstream_fetches.capped === 1);
    const second = as(svc, meta(up, '/p?second'), 75);
    const h = await healthWhen(svc, (h) => h.upstream_fetches.capped === 2);
    assert.equal([h.upstream_fetches.in_flight, h.upstream_fetches.capped], [1, 2]);
    // ...while another client's page does not.
    const other = await as(svc, meta(up, '/p?other'), 76);
    assert.is(other.status, 200);
    cutHung();
    assert.equal((await first).json.title, 'I');
    assert.equal((await second).json.title, 'P');
  } finally {
    await svc.close();
  }
});

shares('a fetch shared through the single flight is charged to the client that started it', async ({ up, cutHung }) => {
  const svc = await startService({ ...ENV, MAX_FETCHES_PER_CLIENT: '1' });
  try {
    const starter = as(svc, meta(up, '/hang?shared'), 77);
    await healthWhen(svc, (h) => h.upstream_fetches.in_flight === 1);
    const joiner = as(svc, meta(up, '/hang?shared'), 78);
    const own = await as(svc, meta(up, '/p?joiner'), 78);
    assert.equal([own.status, own.json.title], [200, 'P'], "the joiner's share is untouched");
    const blocked = as(svc, meta(up, '/p?starter'), 77);
    const h = await healthWhen(svc, (h) => h.upstream_fetches.capped === 1);
    assert.is(h.upstream_fetches.capped, 1, "the starter's next page waits behind the shared fetch");
    cutHung();
    assert.equal([(await starter).status, (await joiner).status, (await blocked).status], [422, 422, 200]);
    assert.is(up.hits('/hang'), 1, 'the joiner waited for the same fetch');
  } finally {
    await svc.close();
  }
});

shares('every slot taken with a fetch waiting: /healthz says saturated and degraded', async ({ up, cutHung }) => {
  const svc = await startService({ ...ENV, MAX_CONCURRENT_FETCHES: '2', MAX_FETCHES_PER_CLIENT: '0' });
  try {
    const held = Promise.all([1, 2, 3].map((i) => as(svc, meta(up, `/hang?sat${i}`), 80 + i).catch((err: Error) => err)));
    const h = await healthWhen(svc, (h) => h.upstream_fetches.queued === 1);
    const { wait_ms, ...slots } = h.upstream_fetches;
    assert.equal(slots, { in_flight: 2, max_in_flight: 2, queued: 1, capped: 0, saturated: true });
    assert.equal(wait_ms, { p50: 0, p90: 0, max: 0 }, 'the two granted at once; the third still waits');
    assert.is(h.status, 'degraded');
    assert.equal(h.degraded_by, ['fetch_slots']);
    cutHung();
    await held;
  } finally {
    await svc.close();
  }
});

shares('a 503 of our own saturation is not remembered as the page failing', async ({ up, cutHung }) => {
  const svc = await startService({ ...ENV, MAX_CONCURRENT_FETCHES: '1', FETCH_QUEUE_MAX: '0', MAX_FETCHES_PER_CLIENT: '0' });
  try {
    const held = as(svc, meta(up, '/hang?overload'), 90).catch((err: Error) => err);
    await healthWhen(svc, (h) => h.upstream_fetches.in_flight === 1);
    const refused = await as(svc, meta(up, '/p?overload'), 91);
    assert.equal([refused.status, refused.json], [503, { code: 503, message: 'The service is busy; retry in a second.' }]);
    cutHung();
    await held;
    const again = await as(svc, meta(up, '/p?overload'), 91);
    assert.equal([again.status, again.json.title], [200, 'P'], 'fetched afresh');
  } finally {
    await svc.close();
  }
});

shares('a page whose deadline ran out after waiting for a slot is fetched afresh next time', async ({ up }) => {
  const svc = await startService({ ...ENV, FETCH_TIMEOUT_MS: '2000', MAX_CONCURRENT_FETCHES: '1', MAX_FETCHES_PER_CLIENT: '0' });
  try {
    const held = as(svc, meta(up, '/hang?wait'), 92);
    await healthWhen(svc, (h) => h.upstream_fetches.in_flight === 1);
    // Queued behind /hang from about its start: it gets the slot when /hang's deadline ends, with
    // little of its own deadline left (the time /hang had run before it came); the page needs SLOWISH_MS.
    const late = await as(svc, meta(up, '/slowish'), 93);
    // The message names the page's deadline (FETCH_TIMEOUT_MS), not the part of it left after the queue.
    assert.equal([late.status, late.json], [422, { code: 422, reason: 'timeout', message: 'The site did not answer within 2 s.' }]);
    await held;
    // Whether the late one reached the page before its deadline ran out depends on how long it
    // queued (and under load its request may reach the page after its 422 was sent, so the page's
    // count of hits tells nothing); the next one is a miss that fetches the page.
    const again = await as(svc, meta(up, '/slowish'), 93);
    assert.equal([again.status, again.json.title], [200, 'Slowish']);
    assert.match(again.headers.get('server-timing') ?? '', /^cache;desc=miss\b.*\bfetch;dur=/, 'the first failure was not cached: the page was fetched again');
  } finally {
    await svc.close();
  }
});

shares.run();
