// npm run determinism — same bytes, same answer: every corpus page is previewed three times, and the
// three JSON answers must be byte-identical:
//   1. quiet: the library in this process, pages scanned on a pool of threads (SCAN_WORKERS, one a core);
//   2. loaded: a fresh library instance (nothing cached), while busy processes keep every core
//      loaded (two per core);
//   3. cold: the CLI, one new process per page, scanning on its own thread.
// Within run 1 each page is also read again twice through extract() on this thread: same answer.
// The pages are served from 127.0.0.1 under names the simulated internet's nameserver answers.
// Image and favicon probes are off and no remote safety lookup is configured: those are the only
// parts that may depend on the network. Exits 1 on any difference, naming the page and the field.
// `--pages N`: the first N pages of the corpus only (a quick look).

import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { createLinkPeek } from '../src/index.js';
import { startWorldDns } from '../test/world/dns-server.js';
import { corpusPresent, loadManifest, readPage, REPO_ROOT } from './lib/corpus.js';

if (!corpusPresent()) {
  console.log('npm run determinism: no corpus at ../shared/corpus; nothing to check');
  process.exit(0);
}

const pagesAt = process.argv.indexOf('--pages');
const manifest = loadManifest().slice(0, pagesAt > 0 ? Number(process.argv[pagesAt + 1]) : undefined);
const pages = manifest.map((page, i) => ({ ...page, host: `p${i}.corpus.test`, bytes: readPage(page.name) }));
const byHost = new Map(pages.map((p) => [p.host, p]));

const upstream = http.createServer((req, res) => {
  const page = byHost.get((req.headers.host ?? '').split(':')[0]!);
  if (page === undefined) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': page.contentType }).end(page.bytes);
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const port = (upstream.address() as AddressInfo).port;
const dns = await startWorldDns();
dns.set('*.corpus.test', { A: ['127.0.0.1'] });
const urlOf = (host: string) => `http://${host}:${port}/${host.split('.')[0]}.html`;

const engineOptions = { dnsServers: [dns.server], allowPrivateNetworks: true, probeImages: false, scanWorkers: availableParallelism() };

/** Every page through a fresh library instance: JSON text by host, or the failure's message. */
async function throughLibrary(): Promise<Map<string, string>> {
  const lp = createLinkPeek(engineOptions);
  const out = new Map<string, string>();
  try {
    for (const page of pages) {
      try {
        out.set(page.host, JSON.stringify(await lp.metadata(urlOf(page.host))));
      } catch (err) {
        out.set(page.host, `error: ${(err as Error).message}`);
      }
    }
  } finally {
    await lp.close();
  }
  return out;
}

/** extract() of the page's bytes, twice on this thread: the same answer both times. */
async function extractTwice(): Promise<string[]> {
  const lp = createLinkPeek({ dnsServers: [dns.server] });
  const differ: string[] = [];
  try {
    for (const page of pages) {
      const options = { url: urlOf(page.host), headers: { 'content-type': page.contentType } };
      const [a, b] = [JSON.stringify(await lp.extract(page.bytes, options)), JSON.stringify(await lp.extract(page.bytes, options))];
      if (a !== b) differ.push(page.name);
    }
  } finally {
    await lp.close();
  }
  return differ;
}

/** Busy processes, two per core, until stopped. */
function loadCores(): ChildProcess[] {
  return Array.from({ length: 2 * availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

/** The CLI on one page, a new process: its stdout, or its failure's line. */
function throughCli(host: string): Promise<string> {
  const cli = path.join(REPO_ROOT, 'dist', 'server', 'src', 'cli.js');
  const env = { ...process.env, DNS_SERVERS: dns.server, ALLOW_PRIVATE_NETWORKS: 'true', PROBE_IMAGES: 'false' };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, urlOf(host)], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('close', (code) => resolve(code === 0 ? JSON.stringify(JSON.parse(out)) : `error: ${err.trim()}`));
  });
}

/** The first field whose JSON differs between two answers, for the report. */
function firstDifference(a: string, b: string): string {
  if (a.startsWith('error') || b.startsWith('error')) return `${a.slice(0, 120)} | ${b.slice(0, 120)}`;
  const [x, y] = [JSON.parse(a) as Record<string, unknown>, JSON.parse(b) as Record<string, unknown>];
  const key = Object.keys({ ...x, ...y }).find((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
  return `${key}: ${JSON.stringify(x[key!])?.slice(0, 100)} | ${JSON.stringify(y[key!])?.slice(0, 100)}`;
}

const started = performance.now();
const quiet = await throughLibrary();
const sameThread = await extractTwice();
const busy = loadCores();
let loaded: Map<string, string>;
try {
  loaded = await throughLibrary();
} finally {
  for (const child of busy) child.kill();
}
const cold = new Map<string, string>();
for (const page of pages) cold.set(page.host, await throughCli(page.host));
await dns.close();
upstream.close();

const differences: string[] = [];
for (const page of pages) {
  const [q, l, c] = [quiet.get(page.host)!, loaded.get(page.host)!, cold.get(page.host)!];
  if (q !== l) differences.push(`${page.name} quiet vs loaded: ${firstDifference(q, l)}`);
  if (q !== c) differences.push(`${page.name} quiet vs cold CLI: ${firstDifference(q, c)}`);
}
for (const name of sameThread) differences.push(`${name}: extract() twice on one thread differs`);
const failed = [...quiet.values()].filter((answer) => answer.startsWith('error')).length;
const seconds = ((performance.now() - started) / 1000).toFixed(0);
console.log(
  `npm run determinism: ${pages.length} pages, each previewed quiet (threads), loaded (${2 * availableParallelism()} busy processes) and cold (the CLI), and read twice by extract(): ${seconds} s`,
);
console.log(`answers that are failures (the same in every run, or listed below): ${failed}`);
for (const line of differences) console.log(`DIFFERENT ${line}`);
console.log(differences.length === 0 ? `identical: ${pages.length} of ${pages.length} pages, byte for byte` : `${differences.length} differences`);
process.exit(differences.length === 0 ? 0 : 1);
