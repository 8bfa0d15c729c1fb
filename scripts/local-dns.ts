// `npm run dns:local [-- --port 5300] [name=address ...]`: a nameserver on 127.0.0.1 for running
// the service by hand on a machine without internet (CONTRIBUTING.md): the simulated internet's
// (test/world/dns-server.ts), answering the names given here and NXDOMAIN for every other, so the
// service asks it instead of the system's resolvers. Stops on Ctrl-C.
//
//   npm run dns:local -- site.test=127.0.0.1
//   DNS_SERVERS=127.0.0.1:5300 ALLOW_PRIVATE_NETWORKS=true npm start

import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { startWorldDns } from '../test/world/dns-server.js';

const { values, positionals } = parseArgs({ options: { port: { type: 'string', default: '5300' } }, allowPositionals: true });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port}: not a port number`);

const records = positionals.map((arg) => {
  const [name, address] = arg.split('=');
  if (!name || !address || isIP(address) === 0) throw new Error(`${arg}: expected name=address, e.g. site.test=127.0.0.1`);
  return { name, address };
});

const dns = await startWorldDns({ port });
for (const { name, address } of records) dns.set(name, isIP(address) === 6 ? { AAAA: [address] } : { A: [address] });
console.log(
  `nameserver on ${dns.server}: ${records.length ? records.map((r) => `${r.name} → ${r.address}`).join(', ') : 'no names'}; every other name NXDOMAIN`,
);
console.log(`DNS_SERVERS=${dns.server}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void dns.close().then(() => process.exit(0)));
}
