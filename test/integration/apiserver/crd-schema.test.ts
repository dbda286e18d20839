// The project's CRDs (crds/*.yaml) on the server: defaults, pruning with Warning headers,
// fieldValidation=Strict, int-or-string, enum, CEL rules and the 422 causes, as kube-apiserver
// applies them. Runs against the test server or TEST_KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { installCrds, kubeEnv } from '../../support/kube-env.ts';
import { cluster, expectApiError, MYSQL_GROUP, raw } from './helpers.ts';
import type { JsonObject } from '../../support/json.ts';

test('a minimal MysqlCluster gets the schema defaults', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const c = (await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, body: cluster('c1') })) as JsonObject;
  assert.equal(c.spec.replicas, 1);
  assert.equal(c.spec.backupRemoteDeletePolicy, 'retain');
  assert.equal(c.spec.mysqlVersion, '5.7');
  assert.equal(c.spec.maxSlaveLatency, 30);
});

test('unknown fields are pruned with one Warning header each; fieldValidation=Strict refuses them with 400', async (t) => {
  const env = await kubeEnv(t);
  const path = `/apis/mysql.presslabs.org/v1alpha1/namespaces/${env.namespace}/mysqlclusters`;
  const body = JSON.stringify(cluster('c1', { unknownField: 'dropped', podSpec: { unknownPodField: true } }));
  const r = await raw(env.kubeConfig, 'POST', path, { body });
  assert.equal(r.status, 201);
  assert.equal(r.json.spec.unknownField, undefined);
  assert.equal(r.json.spec.podSpec?.unknownPodField, undefined);
  const warnings = [r.headers.warning ?? []].flat().join(', ');
  assert.match(warnings, /299 - "unknown field \\"spec\.unknownField\\""/);
  assert.match(warnings, /299 - "unknown field \\"spec\.podSpec\.unknownPodField\\""/);
  const strict = await raw(env.kubeConfig, 'POST', `${path}?fieldValidation=Strict`, {
    body: JSON.stringify(cluster('c2', { unknownField: 'x' })),
  });
  assert.equal(strict.status, 400);
  assert.equal(strict.json.reason, 'BadRequest');
  assert.match(strict.json.message, /strict decoding error: unknown field "spec\.unknownField"/);
});

test('int-or-string fields take both; enums, minimums and CEL rules give 422 with named fields', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  const ok = (await co.createNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    body: cluster('c1', { minAvailable: '50%', mysqlConf: { max_connections: 100, sql_mode: 'STRICT' } }),
  })) as JsonObject;
  assert.equal(ok.spec.minAvailable, '50%');
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c2', { minAvailable: 1 }) });
  const cases: [Record<string, unknown>, string, string][] = [
    [{ backupRemoteDeletePolicy: 'keep' }, 'FieldValueNotSupported', 'spec.backupRemoteDeletePolicy'],
    [{ replicas: -1 }, 'FieldValueInvalid', 'spec.replicas'],
    [{ replicas: 'three' }, 'FieldValueTypeInvalid', 'spec.replicas'],
    [{ backupSchedule: '0 0 * * *' }, 'FieldValueInvalid', 'spec'],
  ];
  for (const [spec, reason, field] of cases) {
    const err = await expectApiError(co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('bad', spec) }));
    assert.equal(err.code, 422, JSON.stringify(spec));
    const causes = (err.status.details as { causes: { reason: string; field: string }[] }).causes;
    assert.ok(
      causes.some((c) => c.reason === reason && c.field === field),
      `${JSON.stringify(spec)}: ${JSON.stringify(causes)}`,
    );
  }
});

test('after a CRD gains a default, existing objects show it when read, as the real server applies defaults on read', {
  skip: process.env.TEST_KUBECONFIG ? 'changes a CRD' : false,
}, async (t) => {
  const env = await kubeEnv(t, { crds: false });
  const ext = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const schema = (withDefault: boolean) => ({
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: { size: { type: 'integer', ...(withDefault ? { default: 3 } : {}) } } } },
    },
  });
  const crd = {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: schema(false) }],
    },
  };
  await ext.createCustomResourceDefinition({ body: crd as never });
  const g = { group: 'example.com', version: 'v1', plural: 'widgets', namespace: env.namespace };
  await co.createNamespacedCustomObject({
    ...g,
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} },
  });
  // Raw merge patch: client-node's CRD model would drop the `default` keyword of a plain object.
  const patched = await raw(env.kubeConfig, 'PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
    body: JSON.stringify({ spec: { versions: [{ name: 'v1', served: true, storage: true, schema: schema(true) }] } }),
    contentType: 'application/merge-patch+json',
  });
  assert.equal(patched.status, 200, patched.text);
  const w = (await co.getNamespacedCustomObject({ ...g, name: 'w' })) as { spec: { size?: number } };
  assert.equal(w.spec.size, 3);
  const list = (await co.listNamespacedCustomObject(g)) as { items: { spec: { size?: number } }[] };
  assert.equal(list.items[0]!.spec.size, 3);
});

test('installCrds applies the project CRDs with their defaults and int-or-string intact, and converges when re-run', {
  skip: process.env.TEST_KUBECONFIG ? 'kube-env installs them there' : false,
}, async (t) => {
  const env = await kubeEnv(t, { crds: false });
  await installCrds(env.kubeConfig);
  await installCrds(env.kubeConfig);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const c = (await co.createNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: env.namespace,
    body: cluster('c1', { minAvailable: '50%' }),
  })) as JsonObject;
  assert.equal(c.spec.replicas, 1);
  assert.equal(c.spec.minAvailable, '50%');
});

test('a CRD serving two versions (conversion None) shows the same object under each apiVersion', async (t) => {
  const env = await kubeEnv(t, { crds: false });
  const schema = {
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
  };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets${env.namespace.replace(/-/g, '')}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: `gadgets${env.namespace.replace(/-/g, '')}`, singular: `gadget${env.namespace.replace(/-/g, '')}`, kind: 'Gadget' },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v1beta1', served: true, storage: false, schema },
      ],
    },
  };
  await installCrds(env.kubeConfig, [crd]);
  // A real cluster keeps CRDs; the test server goes away with the test.
  if (!env.server)
    t.after(() =>
      raw(env.kubeConfig, 'DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`).then(() => undefined),
    );
  const path = (v: string) => `/apis/example.com/${v}/namespaces/${env.namespace}/${crd.spec.names.plural}`;
  const created = await raw(env.kubeConfig, 'POST', path('v1'), {
    body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 2 } }),
  });
  assert.equal(created.status, 201, created.text);
  const beta = await raw(env.kubeConfig, 'GET', `${path('v1beta1')}/g`);
  assert.equal(beta.json.apiVersion, 'example.com/v1beta1');
  assert.equal(beta.json.spec.size, 2);
  const list = await raw(env.kubeConfig, 'GET', path('v1beta1'));
  assert.deepEqual(
    list.json.items.map((i: { apiVersion: string }) => i.apiVersion),
    ['example.com/v1beta1'],
  );
});
