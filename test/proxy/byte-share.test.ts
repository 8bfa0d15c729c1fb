// Proxied bytes are shared per client, through the real app against a real upstream: the instance's
// budget (PROXY_EGRESS_BYTES_PER_SECOND) is split between the clients streaming, not between
// their streams, so a client opening many does not starve one that opens a single image.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { respond, startUpstream } from '../helpers/upstream.js';
import { pngOfSize } from './images.js';
import { startProxyService } from './harness.js';

const MiB = 1024 * 1024;
const IMAGE = pngOfSize(MiB);

/** GETs `url` from `localAddress`, reading every byte; ms from `since` to the last one, and the byte count. */
function pull(url: string, localAddress: string, since: number): Promise<{ ms: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ ms: performance.now() - since, bytes, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('one client pulling six 1 MB images at once gets its share, another client’s single image is not starved', async () => {
  const up = await startUpstream({ routes: { '*': respond(200, IMAGE, { 'content-type': 'image/png' }) } });
  const proxy = await startProxyService({ PROXY_EGRESS_BYTES_PER_SECOND: String(4 * MiB) });
  try {
    const url = (n: string) => `${proxy.service.baseUrl}${proxy.path(up.url(`/${n}.png`))}`;
    const started = performance.now();
    const greedy = Array.from({ length: 6 }, (_, i) => pull(url(`g${i}`), '127.0.0.101', started));
    const single = await pull(url('s'), '127.0.0.102', started);
    const many = await Promise.all(greedy);
    for (const r of [single, ...many]) assert.equal([r.status, r.bytes], [200, MiB]);
    const firstOfMany = Math.min(...many.map((r) => r.ms));
    // Half of 4 MiB/s: about 0.5 s, against about 1.25 s for the first of the six (four of them
    // open at once: client-streams.ts). Shared per stream it would get a fifth, and end with them.
    assert.ok(single.ms < firstOfMany * 0.75, `the single image took ${single.ms.toFixed(0)} ms, the first of the six ${firstOfMany.toFixed(0)} ms`);
    // Work-conserving: once it is done the six get the whole budget, all 7 MiB within about 1.75 s.
    const last = Math.max(...many.map((r) => r.ms));
    assert.ok(last >= 1400, `the budget holds: everything sent after ${last.toFixed(0)} ms`);
  } finally {
    await proxy.close();
    await up.close();
  }
});

test.run();
