import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type CheckedResponse, type Service } from '../helpers/service.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

// Who counts as one client, attacked one way per test: each sends more requests than one budget
// holds while dressed up as many clients. The requests go out at once, well within one 10 s
// window; how the window moves over time is tested on the stores with a driven clock
// (test/store/rate-limit.test.ts).

const LIMIT = { RATE_LIMIT_MAX: '20' };
let up: Upstream;
let page: string;

test.before(async () => {
  up = await startUpstream({
    routes: {
      '/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>A page</title>');
      },
    },
  });
  page = `/v1/metadata?url=${encodeURIComponent(up.url('/').href)}`;
});
test.after(async () => up.close());

async function withService(env: Record<string, string>, run: (svc: Service) => Promise<void>): Promise<void> {
  const svc = await startService({ ...LIMIT, ...env });
  try {
    await run(svc);
  } finally {
    await svc.close();
  }
}

/** Sends one request per element of `forwarded`, one after another, each with that X-Forwarded-For. */
async function asForwarded(svc: Service, forwarded: string[], localAddress = '127.0.0.1'): Promise<CheckedResponse[]> {
  const out = [];
  for (const xff of forwarded) out.push(await svc.request(page, { headers: { 'x-forwarded-for': xff }, localAddress }));
  return out;
}

const statuses = (res: CheckedResponse[]) => res.map((r) => r.status);
const count = (res: CheckedResponse[], status: number) => res.filter((r) => r.status === status).length;

test('TRUST_PROXY: 30 requests whose X-Forwarded-For is 1.2.3.4:<new port each time> get at most 20 answers of 200 in 10 s', async () => {
  await withService({ TRUST_PROXY: 'true' }, async (svc) => {
    const res = await asForwarded(
      svc,
      Array.from({ length: 30 }, (_, i) => `1.2.3.4:${5555 + i}`),
    );
    assert.equal(statuses(res), [...Array(20).fill(200), ...Array(10).fill(429)]);
    // The port is not part of the client: the plain address is the same, spent budget.
    assert.is((await asForwarded(svc, ['1.2.3.4']))[0]!.status, 429);
  });
});

test('TRUST_PROXY: [2001:db8::1]:<new port each time> is one client, the address in brackets', async () => {
  await withService({ TRUST_PROXY: 'true' }, async (svc) => {
    const res = await asForwarded(
      svc,
      Array.from({ length: 25 }, (_, i) => `[2001:db8::1]:${40000 + i}`),
    );
    assert.equal(statuses(res), [...Array(20).fill(200), ...Array(5).fill(429)]);
    assert.is((await asForwarded(svc, ['2001:db8::2']))[0]!.status, 429, 'the same /64');
  });
});

test('TRUST_PROXY: a malformed X-Forwarded-For entry never becomes a client of its own (junk counts against the proxy that sent it)', async () => {
  await withService({ TRUST_PROXY: 'true' }, async (svc) => {
    const junk = Array.from({ length: 21 }, (_, i) => ['unknown', `junk-${i}`, `1.2.3.4:99999`, `[not-an-address]:1`, `_hidden${i}`, ''][i % 6]!);
    const res = await asForwarded(svc, junk, '127.0.0.71');
    assert.equal(statuses(res), [...Array(20).fill(200), 429]);
    // The budget spent was the proxy's own address: a request from it without the header is refused too.
    const plain = await svc.request(page, { localAddress: '127.0.0.71' });
    assert.is(plain.status, 429);
  });
});

test('TRUST_PROXY naming its proxy: a request straight from another address is keyed by its socket address, whatever its X-Forwarded-For', async () => {
  await withService({ TRUST_PROXY: '127.0.0.50' }, async (svc) => {
    const direct = await asForwarded(
      svc,
      Array.from({ length: 21 }, (_, i) => `203.0.113.${i + 1}`),
      '127.0.0.60',
    );
    assert.equal(statuses(direct), [...Array(20).fill(200), 429]);
    // Through the named proxy, each forwarded address is a client of its own.
    const proxied = await asForwarded(
      svc,
      Array.from({ length: 21 }, (_, i) => `203.0.113.${i + 1}`),
      '127.0.0.50',
    );
    assert.is(count(proxied, 200), 21);
  });
});

test('TRUST_PROXY with a CIDR: through two trusted proxies, the first untrusted entry from the right is the client, the forged ones left of it ignored', async () => {
  await withService({ TRUST_PROXY: '127.0.0.50, 10.0.0.0/8' }, async (svc) => {
    const res = await asForwarded(
      svc,
      Array.from({ length: 21 }, (_, i) => `198.18.0.${i + 1}, 198.51.100.7, 10.1.2.3`),
      '127.0.0.50',
    );
    assert.equal(statuses(res), [...Array(20).fill(200), 429]);
    assert.is((await asForwarded(svc, ['198.51.100.8, 10.1.2.3'], '127.0.0.50'))[0]!.status, 200, 'another client behind the same proxies');
  });
});

test('one IPv6 /48 rotating through its /64s: the /48 budget runs out at RATE_LIMIT_IPV6_48_MAX', async () => {
  await withService({ TRUST_PROXY: 'true', RATE_LIMIT_IPV6_48_MAX: '50' }, async (svc) => {
    const res = await asForwarded(
      svc,
      Array.from({ length: 51 }, (_, i) => `2001:db8:7:${i.toString(16)}::1`),
    );
    assert.equal(statuses(res), [...Array(50).fill(200), 429]);
    const refused = res[50]!;
    assert.is(refused.headers.get('x-ratelimit-limit'), '50', 'the /48 budget decided');
    assert.is(refused.headers.get('retry-after'), '10');
    assert.is((await asForwarded(svc, ['2001:db8:8::1']))[0]!.status, 200, 'another /48 has its own budget');
  });
});

test.run();
