// LinkPeek as src/main.ts builds it — its garbage-collection setting, then createApp(loadConfig(env))
// inside src/server.ts's createServer (its timeouts) — but listening on 127.0.0.1 port 0 and printing
// "LISTENING <port>" on stderr, so the benchmarks can start it fresh per run and
// read its /proc status. Request logs go to stdout (the benchmarks send it to /dev/null).

import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createServer } from '../../src/server.js';
import { tuneGarbageCollection } from '../../src/gc.js';

const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
tuneGarbageCollection(config.gcHeapGrowthPercent);
// BENCH_PREFETCH_IMAGE_HOSTS=false: the world benchmark's comparison without the image-host prefetch.
const app = await createApp(config);
const server = createServer(app, config);
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
