import dgram from 'node:dgram';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DNS_DEGRADED } from '../../src/fetch/dns-window.js';
import { startService } from '../helpers/service.js';

// DNS_SERVERS on a dead address is LinkPeek's fault, not the site's: pages and images are answered
// `resolver_unavailable` naming the resolver, and /healthz says degraded. Two ways to be dead: a
// port where nothing listens (the connection is refused at once), and a nameserver that takes
// queries and never answers (each lookup times out; once most of the last 30 s went unanswered,
// the rule /healthz uses, a timeout is the resolver's too).

const RESOLVER_DOWN = "LinkPeek's DNS resolver did not answer, so the site was not tried; retry later.";
const metadata = (host: string) => `/v1/metadata?url=${encodeURIComponent(`http://${host}/`)}`;

/** A UDP socket on 127.0.0.1 that reads queries and never answers; `close` ends it. */
async function silentNameserver(): Promise<{ server: string; close: () => Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { server: `127.0.0.1:${socket.address().port}`, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

test('nothing listens at DNS_SERVERS: 422 and 502 resolver_unavailable, and /healthz degraded', async () => {
  const dead = await silentNameserver();
  await dead.close(); // the port is free again: queries to it are refused
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', DNS_SERVERS: dead.server, DNS_TIMEOUT_MS: '500' });
  try {
    const page = await svc.request(metadata('site.test'));
    assert.equal([page.status, page.json], [422, { code: 422, message: RESOLVER_DOWN, reason: 'resolver_unavailable' }]);
    const image = await svc.request(`/v1/cors-proxy?url=${encodeURIComponent('http://images.test/a.png')}`);
    assert.equal([image.status, image.json], [502, { error: `The image could not be fetched. ${RESOLVER_DOWN}`, reason: 'resolver_unavailable' }]);

    for (let i = 2; i < DNS_DEGRADED.minTimeouts; i++) assert.is((await svc.request(metadata(`site-${i}.test`))).json.reason, 'resolver_unavailable');
    const health = await svc.request('/healthz');
    assert.equal([health.status, health.json.status, health.json.dns], [200, 'degraded', { queries: 5, timeouts: 0, unreachable: 5, cached_names: 5 }]);
    assert.match((await svc.request('/metrics')).text, 'linkpeek_dns_query_duration_seconds_count{outcome="unreachable"} 5');
  } finally {
    await svc.close();
  }
});

test('a nameserver nobody answers: name_not_resolved until most lookups go unanswered, then resolver_unavailable', async () => {
  const silent = await silentNameserver();
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', DNS_SERVERS: silent.server, DNS_TIMEOUT_MS: '200' });
  try {
    // One silent name says nothing about the resolver: it may be the site's own nameservers.
    for (let i = 0; i < DNS_DEGRADED.minTimeouts - 1; i++) {
      const res = await svc.request(metadata(`dead-${i}.test`));
      assert.equal([res.status, res.json], [422, { code: 422, message: `The name dead-${i}.test does not resolve.`, reason: 'name_not_resolved' }]);
    }
    const last = await svc.request(metadata('dead-last.test'));
    assert.equal([last.status, last.json], [422, { code: 422, message: RESOLVER_DOWN, reason: 'resolver_unavailable' }]);
    const health = await svc.request('/healthz');
    assert.equal([health.json.status, health.json.dns], ['degraded', { queries: 5, timeouts: 5, unreachable: 0, cached_names: 5 }]);
  } finally {
    await svc.close();
    await silent.close();
  }
});

test.run();
