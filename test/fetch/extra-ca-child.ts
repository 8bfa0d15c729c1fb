// Run by protocols.test.ts in a child process with NODE_EXTRA_CA_CERTS set (Node reads it at
// start-up only): an HTTPS fixture is fetched with no UPSTREAM_CA_FILE. Prints the status or the
// failure reason.
import { createSafeFetch } from '../../src/fetch/fetcher.js';
import { respond, startUpstream } from '../helpers/upstream.js';
import { readAll, testConfig } from './harness.js';

const up = await startUpstream({ protocol: 'h2', routes: { '/': respond(200, 'trusted') } });
const { safeFetch, close } = createSafeFetch(testConfig({ UPSTREAM_CA_FILE: '' }));
try {
  const res = await safeFetch(up.url('/'), { maxBytes: 1024 });
  console.log(`${res.status} ${(await readAll(res.body)).toString()}`);
} catch (err) {
  console.log(`failed: ${(err as { reason?: string }).reason}`);
} finally {
  await close();
  await up.close();
}
