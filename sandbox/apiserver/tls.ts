// A self-signed serving certificate for 127.0.0.1, made by the openssl CLI (Node cannot issue
// certificates). Over TLS, kubectl sends its bearer token, which it never does over plain HTTP.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface ServingCert {
  cert: string;
  key: string;
}

export async function selfSignedCert(host: string): Promise<ServingCert> {
  const dir = mkdtempSync(join(tmpdir(), 'test-apiserver-tls-'));
  try {
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '3650',
      '-subj', '/CN=test-apiserver', '-addext', `subjectAltName=IP:${host},DNS:localhost`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ]);
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
