import { test } from 'uvu';
import * as assert from 'uvu/assert';
// The package's own export, as a client app imports it (compiled JS + .d.ts in dist/).
import { createClient, getMetadata, proxyImage } from 'linkpeek/client';
import { startService } from '../helpers/service.js';

test('the SDK imported as linkpeek/client reaches a running server and reads its errors', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const client = createClient({ baseUrl: svc.baseUrl });
    const bad = await getMetadata({ client, query: { url: 'ftp://example.com/', prefer: 'og' } });
    assert.is(bad.response.status, 400);
    assert.equal(bad.error, {
      success: false,
      errors: [{ code: 400, message: 'must be an absolute http or https URL, not ftp:', path: ['query', 'url'] }],
    });
    const proxied = await proxyImage({ client, query: { url: 'file:///etc/passwd' } });
    assert.is(proxied.response.status, 400);
    assert.equal(proxied.error, { error: 'url: must be an absolute http or https URL, not file:' });
  } finally {
    await svc.close();
  }
});

test.run();
