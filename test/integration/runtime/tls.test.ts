// The kube client over HTTPS as real clusters serve it: the server's CA from the kubeconfig, a
// client certificate, a bearer token. A TLS front (certificates made with openssl) forwards to
// the project's test API server, which speaks plain HTTP.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { Informer } from '../../../src/runtime/informer.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

function makeCerts(dir: string): Record<'ca' | 'serverCert' | 'serverKey' | 'clientCert' | 'clientKey', string> {
  const ossl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ossl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  ossl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  ossl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '1',
    '-extfile',
    'san.ext',
  );
  ossl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=operator');
  ossl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '1');
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
  return {
    ca: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
  };
}

describe('kube client over TLS', () => {
  it('lists, writes and watches through HTTPS with a CA, a client certificate and a token', {
    skip: !hasOpenssl && 'openssl missing',
  }, async (t) => {
    const env = await kubeEnv(t, { crds: false });
    if (!env.server) return t.skip('needs the test API server behind a TLS front');
    const backend = new URL(env.server.url);
    const dir = mkdtempSync(join(tmpdir(), 'runtime-tls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const certs = makeCerts(dir);

    const clientNames: string[] = [];
    const front = https.createServer(
      { cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        clientNames.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ''));
        const up = http.request(
          { host: backend.hostname, port: backend.port, method: req.method, path: req.url, headers: req.headers },
          (upRes) => {
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            upRes.pipe(res);
          },
        );
        up.on('error', () => res.destroy());
        res.on('close', () => up.destroy());
        req.pipe(up);
      },
    );
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    t.after(async () => {
      front.closeAllConnections();
      await new Promise((r) => front.close(r));
    });
    const port = (front.address() as AddressInfo).port;
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const kc = new KubeConfig();
    kc.loadFromString(
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'tls', cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority-data': b64(certs.ca) } }],
        users: [
          {
            name: 'op',
            user: { token: env.server.token, 'client-certificate-data': b64(certs.clientCert), 'client-key-data': b64(certs.clientKey) },
          },
        ],
        contexts: [{ name: 'tls', context: { cluster: 'tls', user: 'op' } }],
        'current-context': 'tls',
      }),
    );
    const client = new KubeClient(kc);
    const informer = new Informer({ client, target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: env.namespace }, relistPeriodMs: 0 });
    t.after(async () => {
      await informer.stop();
      client.close();
    });
    informer.start();
    await informer.waitForSync();
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'over-tls', namespace: env.namespace },
      data: { a: '1' },
    });
    await eventually('the watch delivers the new object over TLS', () => informer.get(env.namespace, 'over-tls') !== undefined);
    assert.ok(clientNames.length > 0 && clientNames.every((n) => n === 'operator'), 'every request carried the client certificate');
  });
});
