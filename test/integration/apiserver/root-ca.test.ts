// In-cluster clients verify the API server with the kube-root-ca.crt ConfigMap every namespace
// gets (the projected kube-api-access volume's ca.crt): over TLS it must verify this server, or
// the sandbox's operator pod could not talk to it.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { test } from 'node:test';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { startApiServer } from '../../../sandbox/apiserver/index.ts';
import { eventually } from '../../support/wait.ts';

test('over TLS, kube-root-ca.crt holds a CA that verifies the API server', {
  skip: process.env.TEST_KUBECONFIG ? "starts a test API server of its own with TLS (a real cluster's CA is its own)" : false,
}, async (t) => {
  const api = await startApiServer({ tls: true });
  t.after(() => api.stop());
  const client = new KubeClient(api.kubeConfig());
  t.after(() => client.close());
  const cm = await eventually('kube-root-ca.crt in default', () =>
    client.getIfExists<{ data: Record<string, string> } & { metadata: object }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'kube-root-ca.crt',
    }),
  );
  const status = await new Promise<number | undefined>((done, fail) => {
    request(`${api.url}/version`, { ca: cm.data['ca.crt'] }, (res) => {
      res.resume();
      done(res.statusCode);
    })
      .on('error', fail)
      .end();
  });
  assert.equal(status, 200);
});
