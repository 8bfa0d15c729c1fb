import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVICE_ARGS } from '../helpers/process.js';

// A service that cannot start says why in one line naming the setting, and exits with 2, as for
// every bad setting (src/config-reader.ts): never a stack trace.

/** Runs the service (helpers/process.ts SERVICE_ARGS) with `env` until it exits; nothing is ever asked of the system resolver. */
function runMain(env: Record<string, string>) {
  return spawnSync(process.execPath, [...SERVICE_ARGS], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'silent', DNS_SERVERS: '127.0.0.1:53', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

/** A port on 127.0.0.1 that something else holds until `release`. */
async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as net.AddressInfo;
  return { port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

test('a PORT already in use: exit 2 and one line naming PORT', async () => {
  const { port, release } = await takenPort();
  try {
    const run = runMain({ PORT: String(port) });
    assert.is(run.status, 2);
    assert.is(run.stderr, `Invalid setting PORT: port ${port} is already in use on 127.0.0.1; choose another PORT or stop what holds it\n`);
  } finally {
    await release();
  }
});

test('a METRICS_PORT already in use: exit 2 and one line naming METRICS_PORT', async () => {
  const { port, release } = await takenPort();
  try {
    const run = runMain({ PORT: '0', METRICS_PORT: String(port) });
    assert.is(run.status, 2);
    assert.is(run.stderr, `Invalid setting METRICS_PORT: port ${port} is already in use on 127.0.0.1; choose another METRICS_PORT or stop what holds it\n`);
  } finally {
    await release();
  }
});

test('a HOST that is not an address of this machine: exit 2 and one line naming HOST', () => {
  // 192.0.2.1 (TEST-NET-1, RFC 5737) is on no interface here: bind fails at once, nothing is sent.
  const run = runMain({ PORT: '0', HOST: '192.0.2.1' });
  assert.is(run.status, 2);
  assert.is(run.stderr, 'Invalid setting HOST: 192.0.2.1 is not an address of this machine\n');
});

test('HOST=999.1.1.1, which is no address: exit 2 and one line naming HOST, and no lookup of it', () => {
  const run = runMain({ PORT: '0', HOST: '999.1.1.1' });
  assert.equal(
    [run.status, run.stderr],
    [2, 'Invalid setting HOST: "999.1.1.1" is not an IP address (names are not looked up): e.g. 0.0.0.0, 127.0.0.1 or ::\n'],
  );
});

test('DNS_SERVERS naming a host instead of an address: exit 2 and one line naming DNS_SERVERS', () => {
  const run = runMain({ PORT: '0', DNS_SERVERS: 'dns.google' });
  assert.is(run.status, 2);
  assert.is(run.stderr, 'Invalid setting DNS_SERVERS: "dns.google" is not an IP address with an optional port (IPv6 in brackets when a port follows)\n');
});

test.run();
