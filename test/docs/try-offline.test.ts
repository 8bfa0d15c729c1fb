import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startService } from '../helpers/service.js';
import { readmeBlocks, REPO_ROOT } from './code-blocks.js';

// README "Try it without the internet", as a user follows it: `npm run try:offline` (its sample
// page and nameserver, on free ports here instead of 8080 and 5300), the service started with the
// block's settings answering the curl line and its showcase, the CLI line and the library block
// run as written. Nothing but the script's own nameserver is asked about a name.

const run = promisify(execFile);
const SAMPLE_TITLE = 'Tide pools of the North Sea';
const section = readmeBlocks().filter((b) => b.file === 'README.md');
const shell = section.find((b) => b.lang === 'sh' && b.text.startsWith('npm run try:offline'))!;
const library = section.find((b) => b.lang === 'ts' && b.text.includes("dnsServers: ['127.0.0.1:5300']"))!;

/** Starts `npm run try:offline` on free ports; resolves with them once it listens. */
function startTryOffline(): Promise<{ dnsPort: number; pagePort: number; stop: () => void }> {
  const child = spawn('npm', ['run', '-s', 'try:offline', '--', '--dns-port', '0', '--page-port', '0'], { cwd: REPO_ROOT, detached: true });
  const stop = () => child.pid !== undefined && child.exitCode === null && process.kill(-child.pid, 'SIGTERM');
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const page = /sample page: http:\/\/sample\.test:(\d+)\//.exec(out);
      const dns = /DNS_SERVERS=127\.0\.0\.1:(\d+)/.exec(out);
      if (page && dns) resolve({ dnsPort: Number(dns[1]), pagePort: Number(page[1]), stop });
    });
    child.once('exit', (code) => reject(new Error(`try:offline exited (${code}): ${out}`)));
  });
}

test('the block starts the sample, then the service with its settings, then asks it with curl and the CLI', () => {
  const lines = shell.text.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
  assert.equal(lines, [
    'npm run try:offline &',
    'DNS_SERVERS=127.0.0.1:5300 ALLOW_PRIVATE_NETWORKS=true SHOWCASE_URL=http://sample.test:8080/ npm start &',
    "curl 'http://localhost:3000/v1/metadata?url=http://sample.test:8080/'",
    'DNS_SERVERS=127.0.0.1:5300 ALLOW_PRIVATE_NETWORKS=true npx linkpeek http://sample.test:8080/',
  ]);
});

test('offline, the service, the CLI and the library each preview the sample page as the README says', async () => {
  const { dnsPort, pagePort, stop } = await startTryOffline();
  const local = (text: string) => text.replaceAll('127.0.0.1:5300', `127.0.0.1:${dnsPort}`).replaceAll('sample.test:8080', `sample.test:${pagePort}`);
  const lines = local(shell.text)
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, ''));
  // The service, with the settings of the block's `npm start` line.
  const settings = Object.fromEntries([...lines[1]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  const svc = await startService({ ...settings, RATE_LIMIT_MAX: '0' });
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-offline-'));
  try {
    const curl = await run('sh', ['-c', lines[2]!.replace('http://localhost:3000', svc.baseUrl)]);
    const answer = JSON.parse(curl.stdout) as { title: string; image: { url: string; width: number } };
    assert.equal([answer.title, answer.image.url, answer.image.width], [SAMPLE_TITLE, `http://sample.test:${pagePort}/card.png`, 1]);
    // The showcase opens on the sample page's card.
    const showcase = await svc.request('/');
    assert.ok(showcase.text.includes(`http://sample.test:${pagePort}/`), 'the showcase names SHOWCASE_URL');

    // The CLI line, with the package's bin for `npx linkpeek`.
    const cli = await run('sh', ['-c', lines[3]!.replace('npx linkpeek', `${process.execPath} dist/server/src/cli.js`)], { cwd: REPO_ROOT });
    assert.equal(JSON.parse(cli.stdout), answer);

    // The library block, run as written, with the package's source for 'linkpeek'.
    const script = path.join(dir, 'offline.mts');
    writeFileSync(script, local(library.text).replace("from 'linkpeek'", `from ${JSON.stringify(path.join(REPO_ROOT, 'src/index.ts'))}`));
    const lib = await run(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, timeout: 30_000 });
    assert.is(lib.stdout, `${SAMPLE_TITLE}\n`);
    assert.match(library.text, `// ${SAMPLE_TITLE}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await svc.close();
    stop();
  }
});

test.run();
