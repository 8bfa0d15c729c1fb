import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/until.js';

// Past capacity, end to end: one fetch slot and a page that takes 150 ms make a queue that stands
// once a client asks for more than that; the instance then refuses that client's new pages at once
// (503 Overloaded with Retry-After), answers a client with nothing in flight, never cuts a page it
// admitted, and /healthz says `degraded` by `shedding` with the rate. When and whom it refuses,
// step by step on a controlled clock, is test/fairness/load-shedder.test.ts.

const PAGE_MS = 150;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const overload = suite<{ up: Upstream }>('past capacity');
overload.before.each(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      // Real time on purpose: what makes the queue stand is pages that take time to come.
      '/slow': async (_req, res) => {
        await sleep(PAGE_MS);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>Slow</title>');
      },
      '/img.png': respond(200, PNG, { 'content-type': 'image/png' }),
    },
  });
});
overload.after.each(async ({ up }) => {
  await up.close();
});

const RATE_LIMIT = 1000;
const ENV = {
  SHED_TARGET_MS: '50',
  MAX_CONCURRENT_FETCHES: '1',
  MAX_FETCHES_PER_CLIENT: '0',
  // High enough never to refuse here: what is counted shows in X-RateLimit-Remaining.
  RATE_LIMIT_MAX: String(RATE_LIMIT),
  PROBE_IMAGES: 'false',
};

overload('a client asking more than the instance finishes is refused at once and uncounted, heaviest first; an idle one is answered', async ({ up }) => {
  const svc = await startService(ENV);
  try {
    const page = (n: number) => `/v1/metadata?${new URLSearchParams({ url: up.url(`/slow?${n}`).href })}`;
    const heavy = (n: number) => svc.request(page(n), { localAddress: '127.0.0.71' });
    // The heavy client: a new page every 40 ms for 2.8 s, far more than one slot finishes.
    const answers: Array<Promise<{ status: number; headers: Headers; json: any; ms: number }>> = [];
    const images: Array<{ status: number; headers: Headers }> = [];
    for (let n = 0; n < 70; n++) {
      const started = performance.now();
      answers.push(heavy(n).then((res) => ({ ...res, ms: performance.now() - started })));
      await sleep(40);
      if (n === 55) {
        // By now the queue has stood for several intervals: the heavy client is being refused, past
        // the first doublings (a quarter of its load) the share by which the wait is past its target.
        const health = (await svc.request('/healthz')).json;
        assert.is(health.status, 'degraded');
        assert.ok(health.degraded_by.includes('shedding'), JSON.stringify(health.degraded_by));
        assert.ok(health.shedding.refused_per_s > 0 && health.shedding.fraction > 0, JSON.stringify(health.shedding));
        assert.ok(health.shedding.standing.includes('fetches'), JSON.stringify(health.shedding));
        // The queue stood with more of its pages in flight than the instance finishes in time: a ceiling on them.
        assert.ok(Number.isInteger(health.shedding.ceiling) && health.shedding.ceiling >= 8, JSON.stringify(health.shedding));
        // Its images are refused too, before they wait for a fetch slot: a client alone is refused
        // that share of its load, at random, so images are asked until one is (or 200 were not).
        let refusedImage: { status: number; json: any } | undefined;
        for (let i = 0; i < 200 && refusedImage === undefined; i++) {
          const image = await svc.request(`/v1/cors-proxy?${new URLSearchParams({ url: up.url(`/img.png?${i}`).href })}`, { localAddress: '127.0.0.71' });
          images.push(image);
          if (image.status === 503) refusedImage = image;
          else assert.is(image.status, 200);
        }
        assert.ok(refusedImage, 'none of 200 images refused');
        assert.match(refusedImage.json.error, /^The service is busy; retry in /);
        // A bystander with nothing in flight is admitted, and served first among the waiters.
        const bystander = await svc.request(`/v1/metadata?${new URLSearchParams({ url: up.url('/slow?bystander').href })}`, { localAddress: '127.0.0.72' });
        assert.equal([bystander.status, bystander.json.title], [200, 'Slow']);
      }
    }
    const all = await Promise.all(answers);
    const refused = all.filter((a) => a.status === 503);
    const statuses = new Set(all.map((a) => a.status));
    assert.ok(
      [...statuses].every((s) => s === 200 || s === 503),
      `only answers and refusals: ${[...statuses].join(', ')}`,
    );
    assert.ok(refused.length >= 10, `refused: ${refused.length} of 70`);
    assert.ok(all.filter((a) => a.status === 200).length >= 5);
    for (const a of all.filter((a) => a.status === 200)) assert.is(a.json.title, 'Slow', 'an admitted page is answered whole');
    // Refusals of the shedder come at once (no wait in a queue), each with its Retry-After.
    const atOnce = refused.filter((a) => a.ms < PAGE_MS);
    assert.ok(atOnce.length >= 10, `refused at once: ${atOnce.length}`);
    for (const a of atOnce) {
      const seconds = Number(a.headers.get('retry-after'));
      assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 10, `Retry-After ${seconds}`);
      assert.equal(a.json, { code: 503, message: `The service is busy; retry in ${seconds === 1 ? 'a second' : `${seconds} seconds`}.` });
    }
    // Refused at the door, before the rate limit counts them: those 503s carry no X-RateLimit-*,
    // and the budget went down by the requests counted only (all within one window).
    const counted = [...all, ...images].filter((a) => a.headers.get('x-ratelimit-limit') !== null);
    const atDoor = refused.filter((a) => a.headers.get('x-ratelimit-limit') === null);
    assert.ok(atDoor.length >= 10, `refused before being counted: ${atDoor.length} of ${refused.length}`);
    assert.is(Math.min(...counted.map((a) => Number(a.headers.get('x-ratelimit-remaining')))), RATE_LIMIT - counted.length);
    // Once the heavy client has stopped, the queue drains and the instance stops refusing.
    await until(async () => (await svc.request('/healthz')).json.shedding.refusing === false, 'shedding to stop', 15_000);
  } finally {
    await svc.close();
  }
});

overload('SHED_TARGET_MS 0: nothing is refused however long the queue stands, and /healthz has no shedding', async ({ up }) => {
  const svc = await startService({ ...ENV, SHED_TARGET_MS: '0', FETCH_TIMEOUT_MS: '10000' });
  try {
    const asked = Array.from({ length: 20 }, (_, n) =>
      svc.request(`/v1/metadata?${new URLSearchParams({ url: up.url(`/slow?${n}`).href })}`, { localAddress: '127.0.0.71' }),
    );
    const all = await Promise.all(asked);
    assert.equal(
      all.map((a) => a.status),
      all.map(() => 200),
    );
    const health = (await svc.request('/healthz')).json;
    assert.is(health.shedding, undefined);
    assert.not.ok(health.degraded_by.includes('shedding'));
  } finally {
    await svc.close();
  }
});

overload.run();
