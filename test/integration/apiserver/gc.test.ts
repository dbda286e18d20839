// Deletion: finalizers and deletionTimestamp, owner references with background, foreground and
// orphan propagation (the garbage collector the real controller-manager runs), and namespace
// deletion. Runs against the test server or TEST_KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, CustomObjectsApi, type V1OwnerReference } from '@kubernetes/client-node';
import { kubeEnv } from '../../support/kube-env.ts';
import { cluster, expectApiError, MERGE_PATCH, MYSQL_GROUP } from './helpers.ts';
import { eventually } from '../../support/wait.ts';
import type { JsonObject } from '../../support/json.ts';

async function ownerWithConfigMap(env: Awaited<ReturnType<typeof kubeEnv>>, name: string, block = true) {
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const owner = (await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, body: cluster(name) })) as JsonObject;
  const ref: V1OwnerReference = {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: block,
  };
  await core.createNamespacedConfigMap({
    namespace: env.namespace,
    body: { metadata: { name: `${name}-config`, ownerReferences: [ref] }, data: { k: 'v' } },
  });
  return { co, core, owner };
}

async function gone(p: () => Promise<unknown>): Promise<boolean> {
  try {
    await p();
    return false;
  } catch (e) {
    if ((e as { code?: number }).code === 404) return true;
    throw e;
  }
}

test('background deletion answers with a Success Status and the garbage collector deletes the dependents', async (t) => {
  const env = await kubeEnv(t);
  const { co, core, owner } = await ownerWithConfigMap(env, 'gc-bg');
  const status = (await co.deleteNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: env.namespace,
    name: 'gc-bg',
    propagationPolicy: 'Background',
  })) as JsonObject;
  assert.deepEqual(status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: 'gc-bg', group: 'mysql.presslabs.org', kind: 'mysqlclusters', uid: owner.metadata.uid },
  });
  await eventually(
    'ConfigMap gc-bg-config to be collected',
    () => gone(() => core.readNamespacedConfigMap({ namespace: env.namespace, name: 'gc-bg-config' })),
    10_000,
  );
});

test('orphan deletion keeps the dependents and strips their owner references', async (t) => {
  const env = await kubeEnv(t);
  const { co, core } = await ownerWithConfigMap(env, 'gc-orphan');
  const answer = (await co.deleteNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: env.namespace,
    name: 'gc-orphan',
    propagationPolicy: 'Orphan',
  })) as JsonObject;
  assert.deepEqual(answer.metadata.finalizers, ['orphan']);
  assert.ok(answer.metadata.deletionTimestamp);
  await eventually(
    'MysqlCluster gc-orphan to be gone',
    () => gone(() => co.getNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, name: 'gc-orphan' })),
    10_000,
  );
  const cm = await core.readNamespacedConfigMap({ namespace: env.namespace, name: 'gc-orphan-config' });
  assert.equal(cm.metadata?.ownerReferences, undefined);
});

test('foreground deletion removes blocking dependents before the owner', async (t) => {
  const env = await kubeEnv(t);
  const { co, core } = await ownerWithConfigMap(env, 'gc-fg');
  const answer = (await co.deleteNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: env.namespace,
    name: 'gc-fg',
    propagationPolicy: 'Foreground',
  })) as JsonObject;
  assert.deepEqual(answer.metadata.finalizers, ['foregroundDeletion']);
  await eventually(
    'MysqlCluster gc-fg to be gone',
    () => gone(() => co.getNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, name: 'gc-fg' })),
    10_000,
  );
  await assert.rejects(
    core.readNamespacedConfigMap({ namespace: env.namespace, name: 'gc-fg-config' }),
    (e: { code?: number }) => e.code === 404,
  );
});

test('an object with a finalizer stays, with deletionTimestamp, until the finalizer is removed', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'f', finalizers: ['example.com/hold'] } } });
  const deleting = (await core.deleteNamespacedConfigMap({ namespace: ns, name: 'f' })) as unknown as JsonObject;
  assert.equal(deleting.kind, 'ConfigMap');
  const held = await core.readNamespacedConfigMap({ namespace: ns, name: 'f' });
  assert.ok(held.metadata?.deletionTimestamp);
  const again = (await core.deleteNamespacedConfigMap({ namespace: ns, name: 'f' })) as unknown as JsonObject;
  assert.equal(again.metadata.resourceVersion, held.metadata?.resourceVersion, 'a second delete changes nothing');
  await core.patchNamespacedConfigMap({ namespace: ns, name: 'f', body: { metadata: { finalizers: null } } }, MERGE_PATCH);
  const err = await expectApiError(core.readNamespacedConfigMap({ namespace: ns, name: 'f' }));
  assert.equal(err.code, 404);
});

test('deleting a namespace removes what it holds, then the namespace; creating in it meanwhile is forbidden', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const name = `${env.namespace}-x`;
  await core.createNamespace({ body: { metadata: { name } } });
  await core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'a', finalizers: ['example.com/hold'] } } });
  await core.deleteNamespace({ name });
  const ns = await core.readNamespace({ name });
  assert.equal(ns.status?.phase, 'Terminating');
  const err = await expectApiError(core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'b' } } }));
  assert.equal(err.code, 403);
  await core.patchNamespacedConfigMap({ namespace: name, name: 'a', body: { metadata: { finalizers: null } } }, MERGE_PATCH);
  await eventually(`namespace ${name} to be gone`, () => gone(() => core.readNamespace({ name })), 60_000);
});

test('a pod bound to a node terminates gracefully: deletionTimestamp in the future, gone after a delete with grace 0', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  await core.createNamespacedPod({
    namespace: ns,
    body: { metadata: { name: 'unscheduled' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } },
  });
  await core.deleteNamespacedPod({ namespace: ns, name: 'unscheduled' });
  await assert.rejects(
    core.readNamespacedPod({ namespace: ns, name: 'unscheduled' }),
    (e: { code?: number }) => e.code === 404,
    'a pod on no node goes at once',
  );
  const skip = env.server ? false : 'binds a pod to a node that runs nothing, which on a real cluster leaves the pod to a real kubelet';
  await t.test('a bound pod', { skip }, async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }], terminationGracePeriodSeconds: 20 } },
    });
    await core.createNamespacedBinding({ namespace: ns, body: { metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-1' } } });
    const bound = await core.readNamespacedPod({ namespace: ns, name: 'p' });
    assert.equal(bound.spec?.nodeName, 'node-1');
    const before = Date.now();
    await core.deleteNamespacedPod({ namespace: ns, name: 'p' });
    const after = Date.now();
    const terminating = await core.readNamespacedPod({ namespace: ns, name: 'p' });
    assert.equal(terminating.metadata?.deletionGracePeriodSeconds, 20);
    // The delete's own time plus the grace period, in whole seconds.
    const at = terminating.metadata!.deletionTimestamp!.getTime();
    assert.ok(
      at >= Math.floor((before + 20_000) / 1000) * 1000 && at <= after + 20_000,
      `deletionTimestamp ${at - before} ms after the delete was sent`,
    );
    // The kubelet reports status while the containers stop: that is no end of the grace period.
    await core.patchNamespacedPodStatus(
      { namespace: ns, name: 'p', body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } } },
      MERGE_PATCH,
    );
    const stillTerminating = await core.readNamespacedPod({ namespace: ns, name: 'p' });
    assert.equal(stillTerminating.status?.phase, 'Running', 'a status write keeps a terminating pod');
    assert.equal(stillTerminating.metadata?.deletionGracePeriodSeconds, 20);
    await core.deleteNamespacedPod({ namespace: ns, name: 'p', gracePeriodSeconds: 0 });
    await assert.rejects(core.readNamespacedPod({ namespace: ns, name: 'p' }), (e: { code?: number }) => e.code === 404);
  });
});
