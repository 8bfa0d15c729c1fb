import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startService } from '../helpers/service.js';
import { respond, startUpstream } from '../helpers/upstream.js';
import { startWorldDns } from '../world/dns-server.js';
import { startSafeBrowsingServer } from './safe-browsing-server.js';

// Safe Browsing's own API calls resolve their host through the app's resolver (DNS_SERVERS), like
// every upstream fetch, never through dns.lookup and the thread pool.

test('the Safe Browsing endpoint is resolved by the configured nameserver, once for many pages', async () => {
  const dns = await startWorldDns();
  const sb = await startSafeBrowsingServer('sb-key');
  const up = await startUpstream({ routes: { '*': respond(200, '<title>t</title>', { 'content-type': 'text/html' }) } });
  dns.set('safebrowsing.world.test', { A: ['127.0.0.1'] });
  const endpoint = new URL(sb.endpoint);
  endpoint.hostname = 'safebrowsing.world.test';
  const svc = await startService({
    RATE_LIMIT_MAX: '0',
    PROBE_IMAGES: 'false',
    DNS_SERVERS: dns.server,
    SAFE_BROWSING_API_KEY: 'sb-key',
    SAFE_BROWSING_URL: endpoint.href,
  });
  try {
    for (const path of ['/a', '/b', '/c']) {
      const res = await svc.request(`/v1/metadata?url=${encodeURIComponent(up.url(path).href)}`);
      assert.equal([res.status, res.json.safety_tags], [200, ['suspicious_domain']], 'an IP host; Safe Browsing found nothing');
    }
    assert.is(sb.requests.length, 3, 'every page was checked');
    assert.is(dns.queries('safebrowsing.world.test', 'A'), 1);
  } finally {
    await svc.close();
    await up.close();
    await sb.close();
    await dns.close();
  }
});

test.run();
