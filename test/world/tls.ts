// Certificates of the simulated internet: one test CA, and a certificate per host name signed by
// it, made with the openssl CLI (no key material is committed, nothing is reused between runs).
// The service under test trusts the CA through UPSTREAM_CA_FILE, the way an operator would add a
// private CA; verification is never turned off.
//
//   const ca = await createTestCa();           // a temporary directory, removed by ca.remove()
//   ca.caFile                                  → the CA certificate (PEM), for UPSTREAM_CA_FILE
//   const { key, cert } = await ca.issue(['site.test', 'www.site.test']);

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCa {
  caFile: string;
  /** A certificate for these names, with its own key, valid for a day. */
  issue(names: readonly string[]): Promise<{ key: string; cert: string }>;
  remove(): Promise<void>;
}

/** P-256 keys: a handshake costs what it does on most of the web, and a key takes milliseconds to make. */
const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export async function createTestCa(): Promise<TestCa> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'linkpeek-world-ca-'));
  const caKey = path.join(dir, 'ca.key');
  const caFile = path.join(dir, 'ca.pem');
  await run('openssl', ['req', '-x509', ...KEY_ARGS, '-keyout', caKey, '-out', caFile, '-days', '2', '-subj', '/CN=LinkPeek world test CA']);
  let serial = 0;

  return {
    caFile,
    async issue(names) {
      const base = path.join(dir, `host-${++serial}`);
      // One openssl run per certificate: a new key, signed by the CA at once (OpenSSL 3 `req -CA`).
      await run('openssl', [
        'req',
        '-x509',
        ...KEY_ARGS,
        '-keyout',
        `${base}.key`,
        '-out',
        `${base}.pem`,
        '-days',
        '1',
        // The names are in subjectAltName (what clients check); a CN holds 64 characters at most.
        '-subj',
        `/CN=${names[0]!.slice(0, 64)}`,
        '-CA',
        caFile,
        '-CAkey',
        caKey,
        '-set_serial',
        String(serial),
        '-addext',
        `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
        '-addext',
        'basicConstraints=critical,CA:FALSE',
        '-addext',
        'extendedKeyUsage=serverAuth',
      ]);
      const [key, cert] = await Promise.all([readFile(`${base}.key`, 'utf8'), readFile(`${base}.pem`, 'utf8')]);
      return { key, cert };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
