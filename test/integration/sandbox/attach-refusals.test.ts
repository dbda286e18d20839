// A sandbox attached to a cluster (sandbox/attach.ts) refuses, with the reason, a server its pods
// could not use: one over plain HTTP, one the kubeconfig does not verify, one it cannot reach, and
// one whose certificate names neither the relay's address nor kubernetes.default.svc (only
// localhost, 127.0.0.1). These refusals come before the relay or anything else starts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { attach } from '../../../sandbox/attach.ts';

function kubeconfig(cluster: Record<string, unknown>): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', ...cluster }],
    users: [{ name: 'u', token: 'not-used' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

async function refusal(kc: KubeConfig): Promise<string> {
  const client = new KubeClient(kc);
  try {
    await attach(kc, client, '10.213.250.1', 'auto');
  } catch (e) {
    return (e as Error).message;
  } finally {
    client.close();
  }
  throw new Error('attached');
}

test('a server over plain HTTP, or one the kubeconfig does not verify, is refused with the reason', async () => {
  assert.match(
    await refusal(kubeconfig({ server: 'http://127.0.0.1:8080' })),
    /is not HTTPS: pods' in-cluster clients send their token over HTTPS only/,
  );
  assert.match(await refusal(kubeconfig({ server: 'https://127.0.0.1:6443', skipTLSVerify: true })), /skips TLS verification/);
});

test('a server it cannot reach is refused naming it', async () => {
  // Port 1 on loopback: nothing listens there.
  assert.match(
    await refusal(kubeconfig({ server: 'https://127.0.0.1:1' })),
    /cannot reach the kubeconfig's server 127\.0\.0\.1:1 over TLS: .*ECONNREFUSED/,
  );
});

test('a certificate for localhost and 127.0.0.1 only is refused, saying what it covers', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'attach-refusal-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const server = createServer({ cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') }, (_req, res) => res.end('{}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const message = await refusal(kubeconfig({ server: `https://127.0.0.1:${port}`, caData: Buffer.from(cert).toString('base64') }));
  assert.match(
    message,
    /certificate covers DNS:localhost, IP:127\.0\.0\.1: neither the sandbox's relay address 10\.213\.250\.1 nor kubernetes\.default\.svc/,
  );
});
