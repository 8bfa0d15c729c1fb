// `npm run try:offline`: everything LinkPeek needs to preview a page on a machine without
// internet (README "Try it without the internet"): a sample page with Open Graph and Twitter tags
// and an image, served on 127.0.0.1, and a nameserver on 127.0.0.1 (the simulated internet's,
// test/world/dns-server.ts) that answers sample.test with that address and NXDOMAIN for every
// other name. The service, the library and the CLI are pointed at it with DNS_SERVERS (or
// `dnsServers`) and allowed to reach loopback with ALLOW_PRIVATE_NETWORKS. Stops on Ctrl-C.
//   npm run try:offline [-- --dns-port 5300 --page-port 8080]   (0: a free port)

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { startWorldDns } from '../test/world/dns-server.js';

const SAMPLE_HOST = 'sample.test';

// A 1×1 PNG: enough for the image probe to read its type and size.
const IMAGE = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const page = (origin: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tide pools of the North Sea</title>
<meta property="og:title" content="Tide pools of the North Sea">
<meta name="twitter:title" content="Rock pools at low tide">
<meta property="og:description" content="What lives between the tides, and when to look: a sample page served by npm run try:offline.">
<meta property="og:site_name" content="LinkPeek sample">
<meta property="og:type" content="article">
<meta property="og:image" content="${origin}/card.png">
<link rel="icon" href="/card.png">
</head>
<body><p>A sample page for LinkPeek.</p></body>
</html>
`;

const { values } = parseArgs({ options: { 'dns-port': { type: 'string', default: '5300' }, 'page-port': { type: 'string', default: '8080' } } });

const server = http.createServer((req, res) => {
  const origin = `http://${req.headers.host ?? SAMPLE_HOST}`;
  if (req.url === '/card.png') res.writeHead(200, { 'content-type': 'image/png' }).end(IMAGE);
  else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(origin));
  else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
});
await new Promise<void>((resolve) => server.listen(Number(values['page-port']), '127.0.0.1', resolve));
const pagePort = (server.address() as AddressInfo).port;

const dns = await startWorldDns({ port: Number(values['dns-port']) });
dns.set(SAMPLE_HOST, { A: ['127.0.0.1'] });

console.log(`sample page: http://${SAMPLE_HOST}:${pagePort}/ (on 127.0.0.1)`);
console.log(`DNS_SERVERS=${dns.server}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    void dns.close().then(() => process.exit(0));
  });
}
