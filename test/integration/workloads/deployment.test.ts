// Deployments as the chart runs the operator and Orchestrator: pods through a ReplicaSet with the
// pod-template-hash label, a rolling replacement when the template changes, and the status with
// Available and Progressing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import { eventually } from '../../support/wait.ts';
import { ONLY_TEST_SERVER, workloadsEnv } from './helpers.ts';

const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };

async function rolledOut(client: KubeClient, namespace: string, name: string, replicas: number): Promise<V1Deployment> {
  return eventually(`Deployment ${name} rolled out`, async () => {
    const d = await client.get<V1Deployment>({ ...DEPLOY, namespace, name });
    const st = d.status;
    const progressed = st?.conditions?.find((c) => c.type === 'Progressing')?.reason === 'NewReplicaSetAvailable';
    return (
      st?.observedGeneration === d.metadata?.generation && progressed && st?.replicas === replicas && st.availableReplicas === replicas && d
    );
  });
}

test('a Deployment makes its pods through a ReplicaSet and replaces them when its template changes', {
  skip: ONLY_TEST_SERVER,
}, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create<V1Deployment>({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'operator', namespace: ns },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'operator' } },
      template: { metadata: { labels: { app: 'operator' } }, spec: { containers: [{ name: 'operator', image: 'mysql-operator:1' }] } },
    },
  });
  const first = await rolledOut(client, ns, 'operator', 2);
  assert.deepEqual(
    first.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ],
  );
  const rsList = async () => (await client.list<V1ReplicaSet>({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, { namespace: ns })).items;
  const podList = async () =>
    (await client.list<V1Pod>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: ns, labelSelector: { app: 'operator' } })).items;
  const [rs1] = await rsList();
  const hash1 = rs1?.metadata?.labels?.['pod-template-hash'];
  assert.equal(rs1?.metadata?.name, `operator-${hash1}`);
  assert.equal(rs1?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  const pods = await podList();
  assert.equal(pods.length, 2);
  for (const p of pods) {
    assert.equal(p.metadata?.labels?.['pod-template-hash'], hash1);
    assert.equal(p.metadata?.ownerReferences?.[0]?.name, rs1?.metadata?.name);
  }

  await client.patch(
    { ...DEPLOY, namespace: ns, name: 'operator' },
    { spec: { template: { spec: { containers: [{ name: 'operator', image: 'mysql-operator:2' }] } } } },
  );
  await eventually('only new pods left', async () => {
    const ps = await podList();
    return ps.length === 2 && ps.every((p) => p.spec?.containers[0]?.image === 'mysql-operator:2') && ps;
  });
  await rolledOut(client, ns, 'operator', 2);
  const after = await rsList();
  const old = after.find((r) => r.metadata?.name === rs1?.metadata?.name);
  const fresh = after.find((r) => r.metadata?.name !== rs1?.metadata?.name);
  assert.equal(old?.spec?.replicas, 0);
  assert.equal(fresh?.spec?.replicas, 2);
  assert.equal(fresh?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
});
