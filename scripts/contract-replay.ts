// The integration suite's requests, replayed through Prism's validating proxy to the compiled
// service, for CI (.ci/contract-check): a check of openapi.yaml by a tool nobody here wrote.
//
//   tsx scripts/contract-replay.ts <recordings folder> <node 24 binary> <prism's bin>
//
// The recordings are what test/helpers/service.ts writes with TEST_RECORD_REQUESTS set (one JSON
// line per request a test sent: method, path and query, headers). The pages and images the tests
// served are gone by now, so a `url` parameter that named a loopback upstream is pointed at this
// script's own upstream instead (an HTML page with Open Graph tags, or a PNG when the path looks
// like an image): a 200 of either endpoint is replayed as a 200. Every other target (names the
// loopback nameserver does not know, refused addresses and ports, malformed values) is sent as
// the test sent it. The service runs as production runs it (dist/, its own process), with the
// rate limit off so that an answer depends on the request alone.
//
// Prism proxies each request and lists what breaks the contract in its `sl-violations` header.
// A finding is any violation of the response (status, headers or body not as declared), and a
// request Prism finds invalid that the service answered with a 2xx or 3xx (the service accepts
// what the contract refuses). A request violation answered with a 4xx is what the test meant to
// send. Prints the findings with the request that caused each, and exits 1 when there is one.

import http from 'node:http';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../test/provision.mjs';
import { startProcess } from '../test/helpers/process.js';

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  status: number;
}

interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

const [recordings, node24, prismBin] = process.argv.slice(2);
if (!recordings || !node24 || !prismBin) {
  console.error('usage: tsx scripts/contract-replay.ts <recordings folder> <node 24 binary> <prism bin>');
  process.exit(2);
}

/** Headers a replayed request keeps: what the client chose, not what its transport added. */
const DROPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
/** How many requests are in flight through Prism at once. */
const CONCURRENCY = 4;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==', 'base64');
const page = (base: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Replayed page</title>
<meta property="og:title" content="A replayed page"><meta property="og:description" content="The contract replay's page.">
<meta property="og:image" content="${base}/image.png"><meta property="og:image:width" content="2"><meta property="og:image:height" content="2">
<meta name="twitter:card" content="summary"><link rel="icon" href="${base}/favicon.png"></head><body><p>Replayed.</p></body></html>`;

const upstream = http.createServer((req, res) => {
  const base = `http://${req.headers.host}`;
  if (/\.(png|jpe?g|gif|webp|ico)$|image|img|icon/i.test(req.url ?? '')) {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
    res.end(req.method === 'HEAD' ? undefined : PNG);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(req.method === 'HEAD' ? undefined : page(base));
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamOrigin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;

/** The request as sent again: a loopback upstream's target moved to this script's upstream. */
function replayed(request: Recorded): Recorded {
  const url = new URL(request.path, 'http://service.invalid');
  const target = url.searchParams.get('url');
  if (target !== null) {
    try {
      const t = new URL(target);
      if (['127.0.0.1', 'localhost', '[::1]'].includes(t.hostname) && t.port !== '') {
        url.searchParams.set('url', upstreamOrigin + t.pathname + t.search);
      }
    } catch {
      // Not a URL: sent as the test sent it.
    }
  }
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
  return { ...request, path: url.pathname + url.search, headers };
}

/**
 * Methods not replayed. Prism checks the operations the document declares, and HEAD (a GET
 * without its body) and OPTIONS (the CORS preflight, 204 on any path) are described in its text
 * instead, as they behave; Prism calls them "route not found" (and fails on a body-less HEAD of
 * /v1/metadata with a 500 of its own). The suite's own check (test/helpers/contract.ts) holds
 * them to that text on every one of its requests.
 */
const NOT_REPLAYED = new Set(['HEAD', 'OPTIONS']);

const seen = new Set<string>();
const requests: Recorded[] = [];
let recorded = 0;
let notReplayed = 0;
for (const file of readdirSync(recordings).filter((f) => f.endsWith('.jsonl'))) {
  for (const line of readFileSync(path.join(recordings, file), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    recorded++;
    const request = replayed(JSON.parse(line) as Recorded);
    if (NOT_REPLAYED.has(request.method)) {
      notReplayed++;
      continue;
    }
    const key = JSON.stringify([request.method, request.path, request.headers]);
    if (seen.has(key)) continue;
    seen.add(key);
    requests.push(request);
  }
}
if (requests.length === 0) {
  console.error(`contract replay: no recorded requests in ${recordings}`);
  process.exit(1);
}

const service = await startProcess({ RATE_LIMIT_MAX: '0' }, 'compiled');
const prismPort = await freePort();
const prism = spawn(
  node24,
  [prismBin, 'proxy', 'openapi.yaml', service.baseUrl, '--host', '127.0.0.1', '--port', String(prismPort), '--cors', 'false', '--errors', 'false'],
  { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] },
);
let prismLog = '';
prism.stdout.on('data', (c: Buffer) => (prismLog = (prismLog + c.toString()).slice(-20_000)));
prism.stderr.on('data', (c: Buffer) => (prismLog = (prismLog + c.toString()).slice(-20_000)));

interface Outcome {
  status: number;
  violations: Violation[];
  /** Prism's own error (application/problem+json), when it could not proxy or check the request. */
  prismError: string | null;
}

function send(request: Recorded): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: prismPort, path: request.path, method: request.method, headers: request.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const header = res.headers['sl-violations'];
          const problem = String(res.headers['content-type']).startsWith('application/problem+json');
          resolve({
            status: res.statusCode ?? 0,
            violations: header ? (JSON.parse(String(header)) as Violation[]) : [],
            prismError: problem ? Buffer.concat(chunks).toString('utf8') : null,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let code = 0;
try {
  // Prism reads and resolves openapi.yaml before it listens: a few seconds, longer on a busy machine.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const up = await send({ method: 'GET', path: '/healthz', headers: {}, status: 200 }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (prism.exitCode !== null || Date.now() > deadline) throw new Error(`Prism did not start:\n${prismLog}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const findings: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const { status, violations, prismError } = await send(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (prismError !== null) findings.push(`${request.method} ${request.path} -> ${status} from Prism itself: ${prismError}`);
        // An unexpected error of the service that the test did not provoke (some tests break a dependency on purpose).
        else if (status === 500 && request.status !== 500) findings.push(`${request.method} ${request.path} -> 500 (the test got ${request.status})`);
        for (const v of violations) {
          const onResponse = v.location[0] === 'response';
          const acceptedInvalid = v.location[0] === 'request' && status < 400;
          if (onResponse || acceptedInvalid) {
            findings.push(
              `${request.method} ${request.path} -> ${status}: ${v.location.join('.')}: ${v.message}${acceptedInvalid ? ' (answered, not refused)' : ''}`,
            );
          }
        }
      }
    }),
  );
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${n} x ${status}`);
  console.log(
    `contract replay: ${requests.length} distinct requests of the ${recorded} the suite sent (${notReplayed} HEAD and OPTIONS left out), through Prism's proxy: ${byStatus.join(', ')}`,
  );
  if (findings.length > 0) {
    console.log(`${findings.length} contract violation(s):\n  ${[...new Set(findings)].join('\n  ')}`);
    code = 1;
  } else {
    console.log('no contract violation');
  }
} catch (err) {
  console.error(err);
  code = 1;
} finally {
  prism.kill();
  await service.stop();
  upstream.close();
}
process.exit(code);
