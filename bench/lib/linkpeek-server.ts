// LinkPeek as src/main.ts builds it (createApp(loadConfig(process.env))), listening on 127.0.0.1
// port 0 and printing "LISTENING <port>" on stderr, so the benchmarks can start it fresh per run and read
// its /proc status. With BENCH_FAST_PATH=1 the response cache (src/api/response-cache.ts) is
// placed where the issue mounts it — after refuseFetchLoops — unless src/app.ts already mounts it;
// stderr says which ("fast path: mounted by app" / "added by bench" / "off").

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { responseCache, responseCacheOptions } from '../../src/api/response-cache.js';

const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
const app = await createApp(config);
const stack = app.koa.middleware as Koa.Middleware[];
let fastPath = stack.some((m) => m.name === 'responseCache') ? 'mounted by app' : 'off';
if (fastPath === 'off' && process.env.BENCH_FAST_PATH === '1') {
  const at = stack.findIndex((m) => m.name === 'refuseFetchLoops');
  if (at < 0) throw new Error('refuseFetchLoops not found in the middleware list');
  stack.splice(at + 1, 0, responseCache(responseCacheOptions(config)));
  fastPath = 'added by bench';
}
const server = http.createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`LISTENING ${(server.address() as AddressInfo).port} fast path: ${fastPath}\n`);
});
process.on('SIGTERM', () => process.exit(0));
