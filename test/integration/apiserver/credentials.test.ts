// What a sandbox attached to a cluster (docs/sandbox.md "Attached to a cluster") needs of the API
// server it stands for: a kubeconfig that authenticates with a client certificate works, and a
// kubelet gets a pod's service account token with a TokenRequest that then authenticates, as on
// a real cluster, so the pods never carry the kubeconfig's own credentials.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { test } from 'node:test';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { NotFoundError } from '../../../src/runtime/kube/errors.ts';
import { startApiServer, type ApiServer } from '../../../sandbox/apiserver/index.ts';
import { eventually } from '../../support/wait.ts';

const skip = process.env.TEST_KUBECONFIG ? 'starts a test API server of its own with TLS' : false;

/** GET `path` with a bearer token (or none), verifying the server with its own CA. */
function getWith(api: ApiServer, path: string, token: string | undefined): Promise<number | undefined> {
  const ca = Buffer.from(String(api.kubeConfig().getCurrentCluster()!.caData), 'base64').toString();
  return new Promise((done, fail) => {
    request(`${api.url}${path}`, { ca, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      res.resume();
      done(res.statusCode);
    })
      .on('error', fail)
      .end();
  });
}

test('a client-certificate kubeconfig authenticates; without it or a token the server answers 403', { skip }, async (t) => {
  const api = await startApiServer({ tls: true, clientCertAuth: true, allowAnonymous: false });
  t.after(() => api.stop());
  const user = api.kubeConfig().getCurrentUser()!;
  assert.equal(user.token, undefined, 'the kubeconfig carries no token');
  assert.ok(user.certData && user.keyData, 'the kubeconfig carries a client certificate');
  const client = new KubeClient(api.kubeConfig());
  t.after(() => client.close());
  const ns = await client.get<{ metadata: { name: string } }>({ apiVersion: 'v1', kind: 'Namespace', name: 'default' });
  assert.equal(ns.metadata.name, 'default');
  assert.equal(await getWith(api, '/api/v1/namespaces', undefined), 403);
});

test('serviceaccounts/<name>/token issues a token that authenticates; an unknown account is 404', { skip }, async (t) => {
  const api = await startApiServer({ tls: true, clientCertAuth: true, allowAnonymous: false });
  t.after(() => api.stop());
  const client = new KubeClient(api.kubeConfig());
  t.after(() => client.close());
  await eventually('the default ServiceAccount of default', () =>
    client.getIfExists({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: 'default' }),
  );
  const answer = (await client.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds: 3607 } },
  })) as { kind: string; status: { token: string; expirationTimestamp: string } };
  assert.equal(answer.kind, 'TokenRequest');
  assert.match(answer.status.expirationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(await getWith(api, '/api/v1/namespaces', answer.status.token), 200);
  assert.equal(await getWith(api, '/api/v1/namespaces', 'not-a-token'), 401);
  await assert.rejects(
    client.request('POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    }),
    NotFoundError,
  );
});
