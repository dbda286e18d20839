// Object semantics through the unmodified client-node: identity fields, resourceVersion,
// generation, status and scale subresources, conflicts and the Status bodies of errors.
// Runs against the test API server, or the cluster of TEST_KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import { kubeEnv } from '../../support/kube-env.ts';
import { cluster, expectApiError, MERGE_PATCH, MYSQL_GROUP, raw, STRATEGIC_PATCH } from './helpers.ts';
import type { JsonObject } from '../../support/json.ts';

const STS = {
  metadata: { name: 'db' },
  spec: {
    replicas: 1,
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'mysql', image: 'mysql:8' }] } },
  },
};

test('create fills uid, creationTimestamp, resourceVersion and generation; resourceVersions increase across resources', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const cm = await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a' }, data: { k: 'v' } } });
  const cr = (await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, body: cluster('c1') })) as {
    metadata: Record<string, unknown>;
  };
  const secret = await core.createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 's' }, stringData: { PASSWORD: 'x' } },
  });
  assert.match(String(cm.metadata?.uid), /^[0-9a-f-]{36}$/);
  assert.ok(cm.metadata?.creationTimestamp instanceof Date);
  assert.equal(cm.metadata?.generation, undefined, 'ConfigMaps have no generation');
  assert.equal(cr.metadata.generation, 1);
  const rvs = [cm.metadata?.resourceVersion, cr.metadata.resourceVersion, secret.metadata?.resourceVersion].map(Number);
  assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!, `increasing: ${rvs.join(',')}`);
  assert.deepEqual(secret.data, { PASSWORD: Buffer.from('x').toString('base64') }, 'stringData folded into data');
  assert.equal(secret.stringData, undefined);
});

test('generateName makes a unique name with the prefix', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const a = await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { generateName: 'gen-' } } });
  const b = await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { generateName: 'gen-' } } });
  assert.match(String(a.metadata?.name), /^gen-[a-z0-9]{5}$/);
  assert.notEqual(a.metadata?.name, b.metadata?.name);
});

test('an update with a stale resourceVersion gets 409 Conflict with the real Status body', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const created = (await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, body: cluster('c1') })) as JsonObject;
  await co.replaceNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: env.namespace,
    name: 'c1',
    body: { ...created, spec: { ...created.spec, replicas: 2 } },
  });
  const err = await expectApiError(
    co.replaceNamespacedCustomObject({
      ...MYSQL_GROUP,
      namespace: env.namespace,
      name: 'c1',
      body: { ...created, spec: { ...created.spec, replicas: 3 } },
    }),
  );
  assert.equal(err.code, 409);
  assert.deepEqual(err.status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'Operation cannot be fulfilled on mysqlclusters.mysql.presslabs.org "c1": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict',
    details: { name: 'c1', group: 'mysql.presslabs.org', kind: 'mysqlclusters' },
    code: 409,
  });
});

test('generation bumps on spec changes only; the status subresource ignores spec and leaves generation', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  let c = (await co.createNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    body: cluster('c1', {}, { labels: { a: 'b' } }),
  })) as JsonObject;
  c = (await co.patchNamespacedCustomObject(
    { ...MYSQL_GROUP, namespace: ns, name: 'c1', body: { metadata: { labels: { a: 'c' } } } },
    MERGE_PATCH,
  )) as JsonObject;
  assert.equal(c.metadata.generation, 1, 'metadata change keeps generation');
  c = (await co.patchNamespacedCustomObject(
    { ...MYSQL_GROUP, namespace: ns, name: 'c1', body: { spec: { replicas: 3 } } },
    MERGE_PATCH,
  )) as JsonObject;
  assert.equal(c.metadata.generation, 2, 'spec change bumps generation');
  const s = (await co.replaceNamespacedCustomObjectStatus({
    ...MYSQL_GROUP,
    namespace: ns,
    name: 'c1',
    body: { ...c, spec: { ...c.spec, replicas: 9 }, status: { readyNodes: 1 } },
  })) as JsonObject;
  assert.equal(s.metadata.generation, 2, 'status write keeps generation');
  assert.equal(s.spec.replicas, 3, 'status write ignores spec');
  assert.deepEqual(s.status, { readyNodes: 1 });
  const u = (await co.replaceNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    name: 'c1',
    body: { ...s, status: { readyNodes: 7 } },
  })) as JsonObject;
  assert.deepEqual(u.status, { readyNodes: 1 }, 'main resource write ignores status');
  const created = (await co.createNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    body: { ...cluster('c2'), status: { readyNodes: 5 } },
  })) as JsonObject;
  assert.equal(created.status, undefined, 'create drops status when the status subresource is on');
});

test('the scale subresource reads and writes spec.replicas of a StatefulSet and of a MysqlCluster', async (t) => {
  const env = await kubeEnv(t);
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  await apps.createNamespacedStatefulSet({ namespace: ns, body: STS });
  const scale = await apps.readNamespacedStatefulSetScale({ name: 'db', namespace: ns });
  assert.equal(scale.spec?.replicas, 1);
  assert.equal(scale.status?.selector, 'app=db');
  await apps.replaceNamespacedStatefulSetScale({
    name: 'db',
    namespace: ns,
    body: { metadata: { name: 'db', namespace: ns }, spec: { replicas: 3 } },
  });
  const sts = await apps.readNamespacedStatefulSet({ name: 'db', namespace: ns });
  assert.equal(sts.spec?.replicas, 3);
  assert.equal(sts.metadata?.generation, 2);
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c1', { replicas: 2 }) });
  const crScale = (await co.getNamespacedCustomObjectScale({ ...MYSQL_GROUP, namespace: ns, name: 'c1' })) as JsonObject;
  assert.equal(crScale.kind, 'Scale');
  assert.equal(crScale.apiVersion, 'autoscaling/v1');
  assert.equal(crScale.spec.replicas, 2);
  await co.patchNamespacedCustomObjectScale({ ...MYSQL_GROUP, namespace: ns, name: 'c1', body: { spec: { replicas: 4 } } }, MERGE_PATCH);
  const cr = (await co.getNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'c1' })) as JsonObject;
  assert.equal(cr.spec.replicas, 4);
});

test('errors carry the Status bodies of the real server: 404, 409 AlreadyExists, 422 with causes', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  const nf = await expectApiError(co.getNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'nope' }));
  assert.equal(nf.code, 404);
  assert.deepEqual(nf.status.details, { name: 'nope', group: 'mysql.presslabs.org', kind: 'mysqlclusters' });
  assert.equal(nf.status.reason, 'NotFound');
  const cmNf = await expectApiError(core.readNamespacedConfigMap({ namespace: ns, name: 'nope' }));
  assert.equal(cmNf.status.message, 'configmaps "nope" not found');
  assert.deepEqual(cmNf.status.details, { name: 'nope', kind: 'configmaps' });
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c1') });
  const dup = await expectApiError(co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c1') }));
  assert.equal(dup.code, 409);
  assert.equal(dup.status.reason, 'AlreadyExists');
  assert.equal(dup.status.message, 'mysqlclusters.mysql.presslabs.org "c1" already exists');
  const bad = await expectApiError(
    co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: { ...cluster('bad'), spec: { replicas: 1 } } }),
  );
  assert.equal(bad.code, 422);
  assert.equal(bad.status.reason, 'Invalid');
  const details = bad.status.details as { kind: string; causes: { reason: string; field: string }[] };
  assert.equal(details.kind, 'MysqlCluster');
  assert.ok(
    details.causes.some((c) => c.reason === 'FieldValueRequired' && c.field === 'spec.secretName'),
    JSON.stringify(details.causes),
  );
});

test('KubernetesObjectApi maps kinds to resources through discovery', async (t) => {
  const env = await kubeEnv(t);
  const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  const ns = env.namespace;
  await api.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns }, data: { a: '1' } });
  await api.create({ ...cluster('c1'), metadata: { name: 'c1', namespace: ns } } as never);
  const cr = await api.read({ apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', metadata: { name: 'c1', namespace: ns } });
  assert.equal(cr.metadata?.name, 'c1');
  const lease = await api.create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: ns },
    spec: { holderIdentity: 'me' },
  } as { apiVersion: string; kind: string; metadata: { name: string; namespace: string } });
  assert.equal(lease.metadata?.name, 'l');
  const list = await api.list('v1', 'ConfigMap', ns);
  assert.ok(list.items.some((i) => i.metadata?.name === 'cm'));
});

test('built-in immutability: StatefulSet spec beyond replicas/template/updateStrategy, pod spec, PVC spec are refused with 422', async (t) => {
  const env = await kubeEnv(t);
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  await apps.createNamespacedStatefulSet({ namespace: ns, body: STS });
  // A patch, not a replace of the created object: a real StatefulSet controller writes status at once (409 on a stale replace).
  const err = await expectApiError(
    apps.patchNamespacedStatefulSet({ namespace: ns, name: 'db', body: { spec: { serviceName: 'other' } } }, MERGE_PATCH),
  );
  assert.equal(err.code, 422);
  const cause = (err.status.details as { causes: { reason: string; field: string; message: string }[] }).causes[0]!;
  assert.equal(cause.reason, 'FieldValueForbidden');
  assert.equal(cause.field, 'spec');
  assert.match(cause.message, /^Forbidden: updates to statefulset spec for fields other than 'replicas'/);
  await apps.patchNamespacedStatefulSet(
    {
      namespace: ns,
      name: 'db',
      body: { spec: { replicas: 2, template: { spec: { containers: [{ name: 'mysql', image: 'mysql:8.1' }] } } } },
    },
    MERGE_PATCH,
  );
  const pod = await core.createNamespacedPod({
    namespace: ns,
    body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } },
  });
  assert.equal(pod.status?.phase, 'Pending');
  await core.patchNamespacedPod(
    { namespace: ns, name: 'p', body: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } },
    STRATEGIC_PATCH,
  );
  const podErr = await expectApiError(
    core.patchNamespacedPod({ namespace: ns, name: 'p', body: { spec: { hostname: 'x' } } }, MERGE_PATCH),
  );
  assert.equal(podErr.code, 422);
  await core.createNamespacedPersistentVolumeClaim({
    namespace: ns,
    body: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  });
  const pvcErr = await expectApiError(
    core.patchNamespacedPersistentVolumeClaim(
      { namespace: ns, name: 'data', body: { spec: { accessModes: ['ReadWriteMany'] } } },
      MERGE_PATCH,
    ),
  );
  assert.equal(pvcErr.code, 422);
});

test('a write that changes nothing stores nothing: same resourceVersion, also for a repeated apply', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  const a = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' }, data: { k: '1' } } });
  const patched = await core.patchNamespacedConfigMap({ namespace: ns, name: 'a', body: { data: { k: '1' } } }, MERGE_PATCH);
  assert.equal(patched.metadata!.resourceVersion, a.metadata!.resourceVersion);
  const replaced = await core.replaceNamespacedConfigMap({ namespace: ns, name: 'a', body: patched });
  assert.equal(replaced.metadata!.resourceVersion, a.metadata!.resourceVersion);
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '1' } });
  const path = `/api/v1/namespaces/${ns}/configmaps/a?fieldManager=ssa`;
  const first = await raw(env.kubeConfig, 'PATCH', path, { body, contentType: 'application/apply-patch+yaml' });
  assert.notEqual(first.json.metadata.resourceVersion, a.metadata!.resourceVersion, 'the new owner is recorded');
  const second = await raw(env.kubeConfig, 'PATCH', path, { body, contentType: 'application/apply-patch+yaml' });
  assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
});

test('labels are validated like ObjectMeta: values over 63 characters or with bad characters give 422', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const long = 'x'.repeat(64);
  const err = await expectApiError(
    core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a', labels: { app: long } } } }),
  );
  assert.equal(err.code, 422);
  const causes = (err.status.details as { causes: { field: string; message: string }[] }).causes;
  assert.deepEqual(
    causes.map((c) => [c.field, c.message]),
    [['metadata.labels', `Invalid value: "${long}": must be no more than 63 characters`]],
  );
  const bad = await expectApiError(
    core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a', labels: { 'a b': 'c' } } } }),
  );
  assert.equal(bad.code, 422);
  await core.createNamespacedConfigMap({
    namespace: env.namespace,
    body: { metadata: { name: 'a', labels: { 'mysql.presslabs.org/cluster': 'c1', empty: '' } } },
  });
});

test('names, Secret data and config keys are validated like the real server', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  const svc = await expectApiError(
    core.createNamespacedService({ namespace: ns, body: { metadata: { name: '1-mysql' }, spec: { ports: [{ port: 3306 }] } } }),
  );
  assert.equal(svc.code, 422);
  assert.match(JSON.stringify(svc.status.details), /DNS-1035 label/);
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: '1-config' } } });
  const b64 = await raw(env.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    body: JSON.stringify({ metadata: { name: 's' }, data: { k: 'not base64!' } }),
  });
  assert.equal(b64.status, 400);
  assert.equal(b64.json.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');
  const key = await expectApiError(
    core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' }, data: { 'my cnf': 'x' } } }),
  );
  assert.equal(key.code, 422);
  assert.equal((key.status.details as { causes: { field: string }[] }).causes[0]!.field, 'data[my cnf]');
});
