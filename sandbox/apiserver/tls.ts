// Certificates made by the openssl CLI (Node cannot issue them): the test API server's
// self-signed serving certificate, and, for a kubeconfig that authenticates with a client
// certificate, a client CA and one admin certificate it signed. Over TLS, kubectl sends its
// bearer token, which it never does over plain HTTP.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface ServingCert {
  cert: string;
  key: string;
}

/**
 * The names every kube-apiserver's serving certificate carries (kubeadm, k3s, kind and the
 * server's own self-signed one): what in-cluster clients may name it by. A sandbox attached to a
 * cluster (sandbox/attach.ts) relays pods to the server under one of these.
 */
export const KUBERNETES_SERVICE_NAMES = [
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
] as const;

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: readonly string[]): Promise<void> {
  await promisify(execFile)('openssl', args);
}

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'test-apiserver-tls-'));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** For `host`, the `kubernetes` names, and `serviceIP` (the `kubernetes` Service's ClusterIP), as kube-apiserver's own. */
export async function selfSignedCert(host: string, serviceIP?: string): Promise<ServingCert> {
  const names =
    ['localhost', ...KUBERNETES_SERVICE_NAMES].map((n) => `DNS:${n}`).join(',') +
    (serviceIP && serviceIP !== host ? `,IP:${serviceIP}` : '');
  return inTempDir(async (dir) => {
    await openssl([
      'req',
      '-x509',
      ...EC_KEY,
      '-days',
      '3650',
      '-subj',
      '/CN=test-apiserver',
      '-addext',
      `subjectAltName=IP:${host},${names}`,
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  });
}

export interface ClientCerts {
  /** The CA the server trusts client certificates of. */
  ca: string;
  /** A client certificate signed by `ca` (CN test-admin, O system:masters) and its key. */
  cert: string;
  key: string;
}

export async function clientCertificates(): Promise<ClientCerts> {
  return inTempDir(async (dir) => {
    const p = (f: string) => join(dir, f);
    await openssl(['req', '-x509', ...EC_KEY, '-days', '3650', '-subj', '/CN=test-client-ca', '-keyout', p('ca.key'), '-out', p('ca.crt')]);
    await openssl([
      'req',
      '-new',
      ...EC_KEY,
      '-subj',
      '/O=system:masters/CN=test-admin',
      '-keyout',
      p('client.key'),
      '-out',
      p('client.csr'),
    ]);
    writeFileSync(p('ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
    await openssl([
      'x509',
      '-req',
      '-in',
      p('client.csr'),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-days',
      '3650',
      '-extfile',
      p('ext'),
      '-out',
      p('client.crt'),
    ]);
    return {
      ca: readFileSync(p('ca.crt'), 'utf8'),
      cert: readFileSync(p('client.crt'), 'utf8'),
      key: readFileSync(p('client.key'), 'utf8'),
    };
  });
}
