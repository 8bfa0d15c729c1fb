import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { startService } from '../helpers/service.js';
import { codeBlocks, REPO_ROOT } from './code-blocks.js';

// CONTRIBUTING.md "Running the service by hand, without internet", as a contributor follows it:
// `npm run dns:local` answering site.test (on a free port here instead of 5300), the service with
// the block's settings, and the curl line previewing a page served on 127.0.0.1 (a free port
// instead of 8080). Nothing but that nameserver is asked about a name.

const run = promisify(execFile);
const [block] = codeBlocks('CONTRIBUTING.md').filter((b) => b.lang === 'sh' && b.text.startsWith('npm run dns:local'));
const TITLE = 'A page of your own';

/** Starts the block's `npm run dns:local` on a free port; resolves with it once it listens. */
function startDnsLocal(names: string[]): Promise<{ port: number; stop: () => void }> {
  const child = spawn('npm', ['run', '-s', 'dns:local', '--', '--port', '0', ...names], { cwd: REPO_ROOT, detached: true });
  const stop = () => child.pid !== undefined && child.exitCode === null && process.kill(-child.pid, 'SIGTERM');
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const dns = /DNS_SERVERS=127\.0\.0\.1:(\d+)/.exec(out);
      if (dns) resolve({ port: Number(dns[1]), stop });
    });
    child.once('exit', (code) => reject(new Error(`dns:local exited (${code}): ${out}`)));
  });
}

test('the block starts the nameserver, then the service with its settings, then asks it with curl', () => {
  assert.ok(block, 'CONTRIBUTING.md has the block');
  const lines = block.text.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
  assert.equal(lines, [
    'npm run dns:local -- site.test=127.0.0.1 &',
    'DNS_SERVERS=127.0.0.1:5300 ALLOW_PRIVATE_NETWORKS=true npm start',
    "curl 'http://localhost:3000/v1/metadata?url=http://site.test:8080/'",
  ]);
});

test("run as written, the block previews a page served on 127.0.0.1 under the nameserver's name", async () => {
  const page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${TITLE}</title><meta property="og:description" content="Served by hand."></head></html>`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const pagePort = (page.address() as AddressInfo).port;
  const lines = block!.text.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
  const names = lines[0]!
    .replace(/^npm run dns:local -- /, '')
    .replace(/ &$/, '')
    .split(' ');
  const dns = await startDnsLocal(names);
  const local = (text: string) => text.replaceAll('127.0.0.1:5300', `127.0.0.1:${dns.port}`).replaceAll('site.test:8080', `site.test:${pagePort}`);
  // The service, with the settings of the block's `npm start` line.
  const settings = Object.fromEntries([...local(lines[1]!).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  const svc = await startService({ ...settings, RATE_LIMIT_MAX: '0' });
  try {
    const curl = await run('sh', ['-c', local(lines[2]!).replace('http://localhost:3000', svc.baseUrl)]);
    const answer = JSON.parse(curl.stdout) as { title: string; description: string; url: string };
    assert.equal([answer.title, answer.description, answer.url], [TITLE, 'Served by hand.', `http://site.test:${pagePort}/`]);
  } finally {
    await svc.close();
    dns.stop();
    page.close();
  }
});

test.run();
