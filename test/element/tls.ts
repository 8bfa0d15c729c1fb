// A throwaway certificate for 127.0.0.1, made once per process with the openssl CLI, for the
// https page of the mixed-content test (the browser context ignores the unknown issuer).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let cached: { key: Buffer; cert: Buffer } | undefined;

export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-element-tls-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' });
    cached = { key: readFileSync(key), cert: readFileSync(cert) };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
