// The connect-time net on its own: even if a caller skipped the URL check, the connector refuses
// a literal loopback address and a name resolving to one, and the fixture sees no connection.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BlockedAddressError } from '../../src/fetch/address.js';
import { createGuardedConnector } from '../../src/fetch/connector.js';
import { respond, startUpstream } from '../helpers/upstream.js';
import { until } from '../helpers/until.js';
import { loopbackLookup, testConfig } from './harness.js';

function dial(connector: ReturnType<typeof createGuardedConnector>, hostname: string, port: number): Promise<Error | null> {
  return new Promise((resolve) => {
    connector({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port), servername: null as unknown as string }, (err, socket) => {
      socket?.destroy();
      resolve(err);
    });
  });
}

test('connector refuses a literal loopback address without the URL check', async () => {
  const up = await startUpstream({ routes: { '/': respond(200, 'x') } });
  const connector = createGuardedConnector(testConfig({ ALLOW_PRIVATE_NETWORKS: 'false' }));
  try {
    for (const host of ['127.0.0.1', '::ffff:127.0.0.1']) {
      const err = await dial(connector, host, up.port);
      assert.instance(err, BlockedAddressError, host);
    }
    const named = createGuardedConnector(testConfig({ ALLOW_PRIVATE_NETWORKS: 'false' }), { lookup: loopbackLookup(['x.test']) });
    assert.instance(await dial(named, 'x.test', up.port), BlockedAddressError);
    assert.is(up.connections, 0, 'no TCP connection reached the fixture');
  } finally {
    await up.close();
  }
});

test('connector with allowPrivateNetworks connects to the loopback fixture (control)', async () => {
  const up = await startUpstream({ routes: {} });
  try {
    const err = await dial(createGuardedConnector(testConfig()), '127.0.0.1', up.port);
    assert.is(err, null);
    await until(() => up.connections > 0, 'the upstream to accept the connection');
    assert.is(up.connections, 1);
  } finally {
    await up.close();
  }
});

test.run();
