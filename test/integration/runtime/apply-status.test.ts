// applyStatus against the API (test server or TEST_KUBECONFIG): each owner writes only its part,
// and a status first written the old way (a PUT on /status by `mysql-operator`, as the anchor and our
// earlier releases did) converges: once an owner has written, what it stops naming goes.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_STATUS_OWNERS, LEGACY_FIELD_MANAGER } from '../../../src/api/index.ts';
import { applyStatus } from '../../../src/runtime/kube/apply-status.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject, ManagedFieldsEntry, ObjectRef } from '../../../src/runtime/kube/types.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import type { Json } from '../../support/json.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Cluster = KubeObject & { status?: Json; metadata: { managedFields?: ManagedFieldsEntry[]; generation?: number } };

const T = '2026-01-01T00:00:00Z';
const cond = (type: string, status = 'True') => ({ type, status, reason: `${type}Reason`, message: type, lastTransitionTime: T });
const node = (name: string) => ({ name, conditions: [{ type: 'Master', status: 'False', lastTransitionTime: T }] });
const orchestratorPart = (nodes: string[], ready = 'True') => ({
  nodes: nodes.map(node),
  conditions: [cond('Ready', ready), cond('PendingFailoverAck', 'False'), cond('ReadOnly', 'False'), cond('FailoverInProgress', 'False')],
});

async function setup(t: TestContext): Promise<{ client: KubeClient; ref: ObjectRef }> {
  const env = await kubeEnv(t);
  const client = new KubeClient(env.kubeConfig, { userAgent: 'apply-status-test/1.0', fieldManager: 'apply-status-test' });
  t.after(() => client.close());
  const ref = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: env.namespace, name: 'c1' };
  await client.create({ ...ref, metadata: { name: 'c1', namespace: env.namespace }, spec: { secretName: 's' } } as KubeObject);
  return { client, ref };
}

const owners = (o: Cluster) => (o.metadata.managedFields ?? []).map((e) => `${e.manager}/${e.operation}/${e.subresource ?? ''}`).sort();

test("two owners write their parts; neither names, owns or removes the other's", async (t) => {
  const { client, ref } = await setup(t);
  await applyStatus(client, ref, CLUSTER_STATUS_OWNERS.orchestrator, orchestratorPart(['n0', 'n1']));
  const both = await applyStatus<Cluster>(client, ref, CLUSTER_STATUS_OWNERS.cluster, {
    readyNodes: 2,
    observedGeneration: 1,
    conditions: [cond('Synced')],
  });
  assert.deepEqual(
    both.status.nodes.map((n: { name: string }) => n.name),
    ['n0', 'n1'],
  );
  assert.deepEqual(
    both.status.conditions.map((c: { type: string }) => c.type),
    ['Ready', 'PendingFailoverAck', 'ReadOnly', 'FailoverInProgress', 'Synced'],
  );
  assert.deepEqual(owners(both), [
    'apply-status-test/Update/',
    'mysql-operator-cluster/Apply/status',
    'mysql-operator-orchestrator/Apply/status',
  ]);
  const fewer = await applyStatus<Cluster>(client, ref, CLUSTER_STATUS_OWNERS.orchestrator, orchestratorPart(['n1'], 'False'));
  assert.deepEqual(
    fewer.status.nodes.map((n: { name: string }) => n.name),
    ['n1'],
  );
  assert.equal(fewer.status.readyNodes, 2);
  assert.equal(fewer.status.conditions.find((c: { type: string }) => c.type === 'Synced').status, 'True');
});

test("a field outside the owner's part is a programmer error, refused before any request", async (t) => {
  const { client, ref } = await setup(t);
  await assert.rejects(
    applyStatus(client, ref, CLUSTER_STATUS_OWNERS.cluster, { nodes: [] }),
    /mysql-operator-cluster does not own status\.nodes/,
  );
  await assert.rejects(
    applyStatus(client, ref, CLUSTER_STATUS_OWNERS.cluster, { conditions: [cond('Ready')] }),
    /does not own the status condition Ready/,
  );
});

test("a status written by PUT converges: the old writer's share of each part is handed over, and what an owner drops goes", async (t) => {
  const { client, ref } = await setup(t);
  const legacy = new KubeClient(client.kubeConfig, { userAgent: 'apply-status-test/1.0', fieldManager: LEGACY_FIELD_MANAGER });
  t.after(() => legacy.close());
  const cur = await client.get<Cluster>(ref);
  await legacy.updateStatus({
    ...cur,
    status: { readyNodes: 3, ...orchestratorPart(['n0', 'n1', 'n2']), conditions: [...orchestratorPart([]).conditions, cond('Synced')] },
  });

  // A plain server-side apply (no hand-over) is not enough: the PUT's owner keeps n2 alive.
  const plain = await client.patch<Cluster>(
    ref,
    { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: 'c1' }, status: orchestratorPart(['n0', 'n1']) },
    {
      type: 'apply',
      subresource: 'status',
      force: true,
      fieldManager: CLUSTER_STATUS_OWNERS.orchestrator.fieldManager,
    },
  );
  assert.deepEqual(
    plain.status.nodes.map((n: { name: string }) => n.name),
    ['n0', 'n1', 'n2'],
  );

  const orch = await applyStatus<Cluster>(client, ref, CLUSTER_STATUS_OWNERS.orchestrator, orchestratorPart(['n0', 'n1']));
  assert.deepEqual(
    orch.status.nodes.map((n: { name: string }) => n.name),
    ['n0', 'n1'],
    'n2 gone with the hand-over',
  );
  const old = orch.metadata.managedFields!.find((e) => e.manager === LEGACY_FIELD_MANAGER && e.operation === 'Update')!;
  assert.deepEqual(Object.keys(old.fieldsV1!['f:status']!).sort(), ['.', 'f:conditions', 'f:readyNodes']);
  assert.deepEqual(
    Object.keys(old.fieldsV1!['f:status']!['f:conditions']!).sort(),
    ['.', 'k:{"type":"Synced"}'],
    "the cluster controller's part stays until it writes",
  );

  const mine = await applyStatus<Cluster>(client, ref, CLUSTER_STATUS_OWNERS.cluster, {
    readyNodes: 3,
    observedGeneration: 1,
    conditions: [cond('Synced')],
  });
  assert.equal(
    mine.metadata.managedFields!.some((e) => e.manager === LEGACY_FIELD_MANAGER && e.subresource === 'status'),
    false,
    'nothing left to the old writer',
  );
  const dropped = await applyStatus<Cluster>(client, ref, CLUSTER_STATUS_OWNERS.cluster, {
    observedGeneration: 1,
    conditions: [cond('Synced')],
  });
  assert.equal(dropped.status.readyNodes, undefined, 'owned alone now: leaving it out removes it');
  assert.deepEqual(
    dropped.status.nodes.map((n: { name: string }) => n.name),
    ['n0', 'n1'],
  );
  // From now on, one request per write and nothing to hand over.
  const again = await applyStatus<Cluster>(client, ref, CLUSTER_STATUS_OWNERS.orchestrator, orchestratorPart(['n0']));
  assert.deepEqual(
    again.status.nodes.map((n: { name: string }) => n.name),
    ['n0'],
  );
  assert.deepEqual(
    owners(again).filter((o) => o.endsWith('/status')),
    ['mysql-operator-cluster/Apply/status', 'mysql-operator-orchestrator/Apply/status'],
  );
});
