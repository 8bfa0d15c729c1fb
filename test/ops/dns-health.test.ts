import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DNS_DEGRADED, DnsWindow } from '../../src/fetch/dns-window.js';
import { startService } from '../helpers/service.js';
import { respond, startUpstream } from '../helpers/upstream.js';
import { startWorldDns } from '../world/dns-server.js';

// /healthz and /metrics while lookups time out. The rule (fetch/dns-window.ts): degraded while, in
// the last 20 s, at least 5 queries timed out and they were at least 20% of all queries.

test("the nameservers are silent only when no query of the window was answered: one answer makes timeouts the names' own", () => {
  let now = 100_000;
  const window = new DnsWindow(() => now);
  for (let i = 0; i < 10; i++) window.record(true);
  assert.equal([window.degraded, window.nameserversSilent], [true, true], 'ten timeouts and nothing answered');
  window.record(false);
  assert.equal([window.degraded, window.nameserversSilent], [true, false], 'an answer: the nameservers are alive, some names are not');
  now += DNS_DEGRADED.windowMs + 1;
  window.record(true, true);
  assert.is(window.nameserversSilent, false, 'one unreachable query is not yet degraded');
});

test('the degraded rule: enough timeouts, and a large enough share of the queries, within the window', () => {
  let now = 100_000;
  const window = new DnsWindow(() => now);
  for (let i = 0; i < DNS_DEGRADED.minTimeouts - 1; i++) window.record(true);
  assert.not.ok(window.degraded, 'four timeouts are not enough');
  window.record(true);
  assert.ok(window.degraded, 'five timeouts out of five');
  for (let i = 0; i < 20; i++) window.record(false);
  assert.is(window.degraded, true, '5 of 25 = 20%');
  window.record(false);
  assert.is(window.degraded, false, '5 of 26 is under 20%');
  now += DNS_DEGRADED.windowMs + 1;
  assert.equal(window.totals(), { queries: 0, timeouts: 0, unreachable: 0 }, 'the window has slid past them');
});

test('/healthz says degraded while lookups time out, with the counts; /metrics counts them by outcome', async () => {
  const dns = await startWorldDns();
  const up = await startUpstream({ routes: { '/': respond(200, '<title>ok</title>', { 'content-type': 'text/html' }) } });
  dns.set('site.test', { A: ['127.0.0.1'] });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '200' });
  try {
    const before = await svc.request('/healthz');
    assert.equal([before.json.status, before.json.dns], ['ok', { queries: 0, timeouts: 0, unreachable: 0, cached_names: 0 }]);
    assert.is((await svc.request(`/v1/metadata?url=${encodeURIComponent(up.url('/', 'site.test').href)}`)).status, 200);

    const names = Array.from({ length: DNS_DEGRADED.minTimeouts }, (_, i) => `dead-${i}.test`);
    for (const name of names) dns.set(name, { silent: true });
    const answers = await Promise.all(names.map((name) => svc.request(`/v1/metadata?url=${encodeURIComponent(`http://${name}/`)}`)));
    assert.equal(
      answers.map((r) => r.status),
      Array(names.length).fill(422),
    );

    const during = await svc.request('/healthz');
    assert.is(during.status, 200);
    assert.equal([during.json.status, during.json.dns], ['degraded', { queries: 6, timeouts: 5, unreachable: 0, cached_names: 6 }]);
    const metrics = (await svc.request('/metrics')).text;
    assert.match(metrics, 'linkpeek_dns_query_duration_seconds_count{outcome="timeout"} 5');
    assert.match(metrics, 'linkpeek_dns_query_duration_seconds_count{outcome="answered"} 1');
    assert.match(metrics, 'linkpeek_dns_cache_requests_total{result="miss"} 6');
  } finally {
    await svc.close();
    await up.close();
    await dns.close();
  }
});

test.run();
