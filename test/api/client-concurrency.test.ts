import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { startService } from '../helpers/service.js';
import { startUpstream } from '../helpers/upstream.js';
import { gate, until } from '../helpers/until.js';

// Every path pays: requests in flight are counted per client on every path, and one client's
// connections are capped as they are accepted.

test('every path pays: a client with MAX_REQUESTS_IN_FLIGHT_PER_CLIENT requests in flight is answered 429 on /healthz, /openapi.yaml and the proxy too', async () => {
  const finish = gate();
  let arrived = 0;
  const up = await startUpstream({
    routes: {
      '*': async (_req, res) => {
        arrived++;
        await finish.promise;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>Slow</title>');
      },
    },
  });
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false', MAX_REQUESTS_IN_FLIGHT_PER_CLIENT: '3' });
  const from = { localAddress: '127.0.0.81' };
  try {
    const held = [1, 2, 3].map((i) => svc.request(`/v1/metadata?url=${encodeURIComponent(up.url(`/p${i}`).href)}`, from));
    await until(() => arrived === 3, 'three pages to be asked for');
    const message = 'Too many requests of this client at once; retry in 1 second.';
    for (const path of ['/healthz', '/openapi.yaml', '/component.js']) {
      const res = await svc.request(path, from);
      assert.is(res.status, 429, path);
      assert.is(res.headers.get('retry-after'), '1');
      assert.equal(res.json, { code: 429, message });
    }
    const proxy = await svc.request(`/v1/cors-proxy?url=${encodeURIComponent(up.url('/i.png').href)}`, from);
    assert.equal([proxy.status, proxy.json], [429, { error: message }]);
    assert.is((await svc.request('/healthz', { localAddress: '127.0.0.82' })).status, 200, 'another client is answered');
    finish.open();
    assert.equal(
      (await Promise.all(held)).map((r) => r.status),
      [200, 200, 200],
    );
    assert.is((await svc.request('/healthz', from)).status, 200, 'answered again once its requests ended');
  } finally {
    finish.open();
    await svc.close();
    await up.close();
  }
});

/** A raw connection from `localAddress`; `answered` resolves with the first bytes it receives. */
function connect(port: number, localAddress: string) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  const answered = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1').split('\r\n')[0]!)));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, answered, closed, ready, ask: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`) };
}

test('one address opening thousands of connections: past MAX_CONNECTIONS_PER_CLIENT each is closed at once, until one of its own closes', async () => {
  const svc = await startService({ MAX_CONNECTIONS_PER_CLIENT: '2' });
  const port = Number(new URL(svc.baseUrl).port);
  try {
    const held = [0, 1].map(() => connect(port, '127.0.0.85'));
    await Promise.all(held.map((c) => c.ready));
    held[0]!.ask('/healthz');
    assert.is(await held[0]!.answered, 'HTTP/1.1 200 OK');
    const refused = connect(port, '127.0.0.85');
    await refused.closed;
    const other = connect(port, '127.0.0.86');
    other.ask('/healthz');
    assert.is(await other.answered, 'HTTP/1.1 200 OK', 'another address still connects');
    held[1]!.socket.destroy();
    await held[1]!.closed;
    await until(async () => {
      const again = connect(port, '127.0.0.85');
      again.ask('/healthz');
      const outcome = await Promise.race([again.answered, again.closed.then(() => 'closed')]);
      again.socket.destroy();
      return outcome === 'HTTP/1.1 200 OK';
    }, 'a connection of its own to be let in again once one closed');
    for (const c of [held[0]!, other]) c.socket.destroy();
  } finally {
    await svc.close();
  }
});

test.run();
