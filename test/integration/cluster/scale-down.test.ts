// Scale-down and PVCs: kept by default; with volumeSpec.deletePVCsOnScaleDown the PVCs of the
// removed ordinals are deleted, never the one of ordinal 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { NEEDS_REQUEST_LOG, OPERATOR_AGENT, operatorTest } from './operator.ts';
import { eventually } from '../../support/wait.ts';
import { requestsNotAllowed } from '../../support/rbac.ts';

const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };

test('scale-down keeps PVCs unless the cluster opts in, and never deletes the PVC of ordinal 0', async (t) => {
  const { env, namespace: ns, client, op } = await operatorTest(t);

  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: ns },
    stringData: { ROOT_PASSWORD: 'x' },
  } as KubeObject);
  for (const name of ['keep', 'drop']) {
    // The claims come first: a real StatefulSet controller then uses them instead of creating
    // data-<c>-mysql-0 itself (which would make this create fail with 409).
    for (let i = 0; i < 3; i++) {
      await client.create({
        ...PVC,
        metadata: {
          name: `data-${name}-mysql-${i}`,
          namespace: ns,
          labels: {
            'mysql.presslabs.org/cluster': name,
            'app.kubernetes.io/name': 'mysql',
            'app.kubernetes.io/managed-by': 'mysql.presslabs.org',
          },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      } as KubeObject);
    }
    await client.create({ ...CLUSTER, metadata: { name, namespace: ns }, spec: { replicas: 3, secretName: 's' } } as KubeObject);
  }
  const pvcs = async (name: string) =>
    (await client.list(PVC, { namespace: ns, labelSelector: { 'mysql.presslabs.org/cluster': name } })).items
      .map((p) => p.metadata?.name)
      .sort();

  const kept = await client.patch({ ...CLUSTER, namespace: ns, name: 'keep' }, { spec: { replicas: 0 } }, { type: 'merge' });
  await client.patch(
    { ...CLUSTER, namespace: ns, name: 'drop' },
    { spec: { replicas: 0, volumeSpec: { deletePVCsOnScaleDown: true } } },
    { type: 'merge' },
  );
  await eventually('drop cleaned', async () => (await pvcs('drop')).length === 1);
  assert.deepEqual(await pvcs('drop'), ['data-drop-mysql-0']);
  // A reconcile of `keep` at replicas 0 has finished: it is the one that would have deleted.
  const scaled = kept.metadata!.generation!;
  await eventually('keep reconciled at replicas 0', () =>
    op.reconciles.of(`${ns}/keep`).some((r) => r.generation !== null && r.generation >= scaled && !r.failed),
  );
  assert.deepEqual(await pvcs('keep'), ['data-keep-mysql-0', 'data-keep-mysql-1', 'data-keep-mysql-2']);
  await t.test(
    "every request the operator made is allowed by the chart's generated RBAC rules",
    { skip: env.server ? false : NEEDS_REQUEST_LOG },
    () => {
      assert.deepEqual(requestsNotAllowed(env.server!, OPERATOR_AGENT), []);
    },
  );
});
