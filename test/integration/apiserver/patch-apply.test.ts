// PATCH in its four forms and server-side apply: JSON merge patch, JSON patch (with `test`),
// strategic merge patch on built-ins (merge keys, new elements first; 415 on custom resources),
// apply with field managers, conflicts and force. Runs against the test server or TEST_KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { kubeEnv } from '../../support/kube-env.ts';
import { cluster, expectApiError, fixtureJson, MERGE_PATCH, MYSQL_GROUP, raw, STRATEGIC_PATCH } from './helpers.ts';
import type { Json, JsonObject } from '../../support/json.ts';

const sts = {
  metadata: { name: 'db' },
  spec: {
    replicas: 1,
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: {
      metadata: { labels: { app: 'db' } },
      spec: {
        containers: [
          {
            name: 'mysql',
            image: 'mysql:8',
            ports: [{ name: 'mysql', containerPort: 3306 }],
            env: [{ name: 'MYSQL_ROOT_PASSWORD', valueFrom: { secretKeyRef: { name: 's', key: 'ROOT_PASSWORD' } } }],
            volumeMounts: [{ name: 'data', mountPath: '/var/lib/mysql' }],
          },
        ],
      },
    },
  },
};

test('JSON patch applies test/replace/add, and a failing test op gives the generic 422', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c1', { replicas: 2 }) });
  const patched = (await co.patchNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    name: 'c1',
    body: [
      { op: 'test', path: '/spec/replicas', value: 2 },
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/metadata/annotations', value: { note: 'json-patch' } },
    ],
  })) as JsonObject;
  assert.equal(patched.spec.replicas, 3);
  assert.deepEqual(patched.metadata.annotations, { note: 'json-patch' });
  const err = await expectApiError(
    co.patchNamespacedCustomObject({
      ...MYSQL_GROUP,
      namespace: ns,
      name: 'c1',
      body: [{ op: 'test', path: '/spec/replicas', value: 42 }],
    }),
  );
  assert.equal(err.code, 422);
  assert.deepEqual(err.status, fixtureJson('cr-patch-json-test-failed.json'));
});

test('strategic merge patch merges container env by name and puts new elements first', async (t) => {
  const env = await kubeEnv(t);
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  const ns = env.namespace;
  await apps.createNamespacedStatefulSet({ namespace: ns, body: sts });
  const patched = await apps.patchNamespacedStatefulSet(
    {
      namespace: ns,
      name: 'db',
      body: { spec: { template: { spec: { containers: [{ name: 'mysql', env: [{ name: 'EXTRA_OPT', value: '1' }] }] } } } },
    },
    STRATEGIC_PATCH,
  );
  const c = patched.spec!.template.spec!.containers[0]!;
  assert.deepEqual(
    c.env!.map((e) => e.name),
    ['EXTRA_OPT', 'MYSQL_ROOT_PASSWORD'],
  );
  assert.equal(c.image, 'mysql:8', 'other container fields kept');
  assert.equal(patched.metadata?.generation, 2);
  const removed = await apps.patchNamespacedStatefulSet(
    {
      namespace: ns,
      name: 'db',
      body: { spec: { template: { spec: { containers: [{ name: 'mysql', env: [{ name: 'EXTRA_OPT', $patch: 'delete' }] }] } } } },
    },
    STRATEGIC_PATCH,
  );
  assert.deepEqual(
    removed.spec!.template.spec!.containers[0]!.env!.map((e) => e.name),
    ['MYSQL_ROOT_PASSWORD'],
  );
});

test('strategic merge patch on a custom resource, or an unknown patch type, gets 415', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c1') });
  const err = await expectApiError(
    co.patchNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'c1', body: { spec: { replicas: 3 } } }, STRATEGIC_PATCH),
  );
  assert.equal(err.code, 415);
  assert.deepEqual(err.status, fixtureJson('err-415-strategic-patch-on-cr.json'));
  const text = await raw(env.kubeConfig, 'PATCH', `/apis/mysql.presslabs.org/v1alpha1/namespaces/${ns}/mysqlclusters/c1`, {
    body: 'spec.replicas=3',
    contentType: 'text/plain',
  });
  assert.equal(text.status, 415);
});

test('merge patch with metadata.resourceVersion is a precondition', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' }, data: { k: '1' } } });
  await core.patchNamespacedConfigMap({ namespace: ns, name: 'a', body: { data: { k: '2' } } }, MERGE_PATCH);
  const err = await expectApiError(
    core.patchNamespacedConfigMap(
      { namespace: ns, name: 'a', body: { metadata: { resourceVersion: cm.metadata!.resourceVersion }, data: { k: '3' } } },
      MERGE_PATCH,
    ),
  );
  assert.equal(err.code, 409);
  assert.equal(err.status.reason, 'Conflict');
});

function applyYaml(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', metadata: { name, labels }, spec });
}

test('server-side apply creates, records the manager, conflicts with another owner (409 FieldManagerConflict) and force takes over', async (t) => {
  const env = await kubeEnv(t);
  const kc = env.kubeConfig;
  const co = kc.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  const path = (name: string, q: string) => `/apis/mysql.presslabs.org/v1alpha1/namespaces/${ns}/mysqlclusters/${name}?${q}`;
  const created = await raw(kc, 'PATCH', path('c3', 'fieldManager=test'), {
    body: applyYaml('c3', { secretName: 'c3-secret' }, { app: 'mysql' }),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(created.status, 201);
  assert.deepEqual(
    created.json.metadata.managedFields.map((m: Json) => [m.manager, m.operation]),
    [['test', 'Apply']],
  );
  assert.deepEqual(created.json.metadata.managedFields[0].fieldsV1, {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': { 'f:secretName': {} },
  });
  // Another manager (an Update) takes spec.replicas.
  await co.patchNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'c3', body: { spec: { replicas: 2 } } }, MERGE_PATCH);
  const conflict = await raw(kc, 'PATCH', path('c3', 'fieldManager=test'), {
    body: applyYaml('c3', { secretName: 'c3-secret', replicas: 5 }, { app: 'mysql' }),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(conflict.status, 409);
  const want = fixtureJson('cr-apply-conflict.json') as JsonObject;
  assert.equal(conflict.json.reason, 'Conflict');
  assert.deepEqual(
    conflict.json.details.causes.map((c: Json) => [c.reason, c.field]),
    want.details.causes.map((c: Json) => [c.reason, c.field]),
  );
  assert.match(
    conflict.json.message,
    /^Apply failed with 1 conflict: conflict with "[^"]+" using mysql\.presslabs\.org\/v1alpha1: \.spec\.replicas$/,
  );
  const forced = await raw(kc, 'PATCH', path('c3', 'fieldManager=test&force=true'), {
    body: applyYaml('c3', { secretName: 'c3-secret', replicas: 5 }, { app: 'mysql' }),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(forced.status, 200);
  assert.equal(forced.json.spec.replicas, 5);
  const test = forced.json.metadata.managedFields.find((m: Json) => m.manager === 'test');
  assert.ok(test.fieldsV1['f:spec']['f:replicas'], 'test owns replicas now');
  const other = forced.json.metadata.managedFields.find((m: Json) => m.manager !== 'test');
  assert.equal(other?.fieldsV1?.['f:spec']?.['f:replicas'], undefined, 'the other manager lost replicas');
  // Applying without a field drops it when nobody else owns it.
  const shrunk = await raw(kc, 'PATCH', path('c3', 'fieldManager=test'), {
    body: applyYaml('c3', { secretName: 'c3-secret' }, { app: 'mysql' }),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(shrunk.status, 200);
  assert.equal(shrunk.json.spec.replicas, 1, 'replicas removed by the applier, then defaulted again');
});

test('server-side apply merges built-in lists by key and leaves fields of other managers alone', async (t) => {
  const env = await kubeEnv(t);
  const kc = env.kubeConfig;
  const ns = env.namespace;
  const apps = kc.makeApiClient(AppsV1Api);
  await apps.createNamespacedStatefulSet({ namespace: ns, body: sts });
  const body = JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db' },
    spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:1' }] } } },
  });
  const r = await raw(kc, 'PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/db?fieldManager=sidecar-injector`, {
    body,
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.json.spec.template.spec.containers.map((c: Json) => c.name),
    ['mysql', 'sidecar'],
  );
  assert.equal(r.json.spec.replicas, 1);
});
