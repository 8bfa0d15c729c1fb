import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { localDns } from '../helpers/local-dns.js';
import { startProcess } from '../helpers/process.js';
import { checkedRequest, startService } from '../helpers/service.js';
import { respond, startUpstream } from '../helpers/upstream.js';

// Local runs keep names local: a service a test starts without naming a nameserver asks the
// empty loopback one (test/helpers/local-dns.ts), and a service run by hand asks the one
// `npm run dns:local` starts (CONTRIBUTING.md), which answers the names given to it.

const root = fileURLToPath(new URL('../../', import.meta.url));
const packageJson = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> };
const q = (url: string) => `/v1/metadata?${new URLSearchParams({ url })}`;

test("a test's service asks the loopback nameserver, which knows no outside name", async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  try {
    const res = await svc.request(q('https://outside-name.example/'));
    assert.is(res.status, 422);
    assert.equal(res.json, { code: 422, message: 'The name outside-name.example does not resolve.', reason: 'name_not_resolved' });
    assert.ok(localDns.queries('outside-name.example') > 0, 'the loopback nameserver was asked');
  } finally {
    await svc.close();
  }
});

test('npm run dns:local answers the names it is given; the service run by hand resolves through it', async () => {
  const up = await startUpstream({ routes: { '/page': respond(200, '<title>Offline page</title><body>', { 'content-type': 'text/html' }) } });
  // What `npm run dns:local` runs (package.json), without npm between: the signal reaches it.
  assert.is(packageJson.scripts['dns:local'], 'tsx scripts/local-dns.ts');
  const dns = spawn(process.execPath, ['--import', 'tsx', 'scripts/local-dns.ts', '--port', '0', 'site.test=127.0.0.1'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => dns.once('exit', resolve));
  try {
    const servers = await new Promise<string>((resolve, reject) => {
      let out = '';
      dns.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^DNS_SERVERS=(\S+)$/m.exec(out);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`dns:local exited: ${out}`)));
    });
    assert.match(servers, /^127\.0\.0\.1:\d+$/);
    const svc = await startProcess({ DNS_SERVERS: servers, RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
    try {
      const page = await checkedRequest(`${svc.baseUrl}${q(`http://site.test:${up.port}/page`)}`);
      assert.is(page.status, 200);
      assert.is(page.json.title, 'Offline page');
      const other = await checkedRequest(`${svc.baseUrl}${q('https://github.com/')}`);
      assert.equal(other.json, { code: 422, message: 'The name github.com does not resolve.', reason: 'name_not_resolved' });
    } finally {
      await svc.stop();
    }
  } finally {
    dns.kill('SIGTERM');
    await exited;
    await up.close();
  }
});

test.run();
