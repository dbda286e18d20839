// Two controllers write one MysqlCluster status at the same time: the cluster controller (running
// in the real manager) its readyNodes, observedGeneration and Synced; a second writer, playing the
// orchestrator controller, nodes[] and the four Orchestrator conditions, applied many times with
// changing values. Nothing is lost: at the end both parts hold their last values, and no state
// a watch saw ever lacked a part once it was written, or held a part nobody wrote.
// Runs against the test API server or a real cluster (TEST_KUBECONFIG).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  CLUSTER_CONDITION,
  CLUSTER_REASONS,
  CLUSTER_STATUS_OWNERS,
  LEGACY_FIELD_MANAGER,
  type MysqlCluster,
  type MysqlClusterStatus,
} from '../../../src/api/index.ts';
import { applyStatus } from '../../../src/runtime/kube/apply-status.ts';
import { sortKeysDeep } from '../../../sandbox/apiserver/json.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject, ManagedFieldsEntry } from '../../../src/runtime/kube/types.ts';
import { eventually } from '../../support/wait.ts';
import { operatorTest } from './operator.ts';

type Cluster = MysqlCluster & KubeObject;
const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const ORCHESTRATOR_CONDITIONS: readonly string[] = CLUSTER_STATUS_OWNERS.orchestrator.conditions;
const MIN_ROUNDS = 40;
const MAX_ROUNDS = 2_000;

/** The orchestrator's part in round `i`: one to three nodes, every value tied to the round. */
function orchestratorPart(ns: string, i: number): Required<Pick<MysqlClusterStatus, 'nodes' | 'conditions'>> {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + i * 1000).toISOString().replace('.000Z', 'Z');
  const flag = (b: boolean): 'True' | 'False' => (b ? 'True' : 'False');
  return {
    nodes: Array.from({ length: 1 + (i % 3) }, (_, k) => ({
      name: `db-mysql-${k}.mysql.${ns}`,
      conditions: [
        { type: 'Lagged', status: flag(k === 1 && i % 2 === 0), lastTransitionTime: at },
        { type: 'Replicating', status: flag(k > 0), lastTransitionTime: at },
        { type: 'Master', status: flag(k === 0), lastTransitionTime: at },
        { type: 'ReadOnly', status: flag(k > 0), lastTransitionTime: at },
      ],
    })),
    conditions: [
      {
        type: CLUSTER_CONDITION.ready,
        status: flag(i % 2 === 0),
        reason: CLUSTER_REASONS.clusterReady,
        message: `round ${i}`,
        lastTransitionTime: at,
      },
      {
        type: CLUSTER_CONDITION.pendingFailoverAck,
        status: 'False',
        reason: CLUSTER_REASONS.noPendingFailoverAckExists,
        message: `round ${i}`,
        lastTransitionTime: at,
      },
      {
        type: CLUSTER_CONDITION.readOnly,
        status: flag(i % 5 === 0),
        reason: CLUSTER_REASONS.clusterReadOnlyFalse,
        message: `round ${i}`,
        lastTransitionTime: at,
      },
      {
        type: CLUSTER_CONDITION.failoverInProgress,
        status: 'False',
        reason: CLUSTER_REASONS.clusterMasterHealthy,
        message: `round ${i}`,
        lastTransitionTime: at,
      },
    ],
  };
}

/** JSON with the keys of every object sorted (the server sorts a custom resource's keys). */
const canonical = (v: unknown): string => JSON.stringify(sortKeysDeep(v));

/** The orchestrator's part as it stands in an object (its conditions in the order they keep). */
function orchestratorPartOf(c: Cluster): string | undefined {
  const conditions = (c.status?.conditions ?? []).filter((x) => ORCHESTRATOR_CONDITIONS.includes(x.type));
  if (!c.status?.nodes && conditions.length === 0) return undefined;
  return canonical({ nodes: c.status?.nodes, conditions });
}

const syncedOf = (c: Cluster) => c.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.synced);

test('the cluster controller and a second writer share one status: both parts end with their last values, none is ever erased', async (t) => {
  const { namespace: ns, client, op } = await operatorTest(t);
  const ref = { ...CLUSTER, namespace: ns, name: 'db' };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db-secret', namespace: ns },
    stringData: { ROOT_PASSWORD: 'pw' },
  } as KubeObject;
  await client.create(secret);
  const created = await client.create<Cluster>({
    ...CLUSTER,
    metadata: { name: 'db', namespace: ns },
    spec: { replicas: 1, secretName: 'db-secret' },
  } as Cluster);
  const get = () => client.get<Cluster>(ref);
  const caughtUp = async () => {
    const c = await get();
    return c.status?.observedGeneration === c.metadata?.generation ? c : undefined;
  };

  // Every state of the object, from its creation on.
  const seen: Cluster[] = [];
  const stopWatch = new AbortController();
  void client
    .watch<Cluster>(CLUSTER, { namespace: ns, resourceVersion: created.metadata?.resourceVersion, signal: stopWatch.signal }, (ev) => {
      if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && ev.object.metadata?.name === 'db') seen.push(ev.object);
    })
    .catch((err: unknown) => {
      if (!stopWatch.signal.aborted) throw err;
    });
  t.after(() => stopWatch.abort());
  await eventually('the cluster Synced', async () => syncedOf(await get())?.status === 'True');

  // The second writer: applies its part round after round until the cluster side is done.
  const applied = new Map<string, number>();
  let last: ReturnType<typeof orchestratorPart> | undefined;
  let rounds = 0;
  let clusterSideDone = false;
  const orchestrator = (async () => {
    for (; (!clusterSideDone || rounds < MIN_ROUNDS) && rounds < MAX_ROUNDS; rounds++) {
      last = orchestratorPart(ns, rounds);
      applied.set(canonical(last), rounds);
      await applyStatus(client, ref, CLUSTER_STATUS_OWNERS.orchestrator, last);
    }
  })();

  // Meanwhile the cluster controller has its own reasons to write: new generations, a Secret gone and back.
  const clusterSide = (async () => {
    try {
      await client.patch(ref, { spec: { replicas: 2 } });
      await eventually('generation 2 observed', caughtUp);
      await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'db-secret' });
      await eventually('Synced False: no Secret', async () => syncedOf(await get())?.reason === CLUSTER_REASONS.userSecretNotFound);
      await client.create(secret);
      await eventually('Synced True again', async () => syncedOf(await get())?.status === 'True');
      await client.patch(ref, { spec: { replicas: 3 } });
      await eventually('generation 3 observed', caughtUp);
    } finally {
      clusterSideDone = true;
    }
  })();
  await Promise.all([orchestrator, clusterSide]);
  assert.ok(rounds >= MIN_ROUNDS && rounds < MAX_ROUNDS, `${rounds} rounds`);

  const end = await get();
  assert.equal(orchestratorPartOf(end), canonical(last), "the second writer's last values");
  assert.equal(end.status?.observedGeneration, end.metadata?.generation, "the cluster controller's last values");
  assert.equal(end.status?.readyNodes, 0);
  assert.deepEqual([syncedOf(end)?.status, syncedOf(end)?.reason], ['True', CLUSTER_REASONS.resourcesSynced]);
  assert.deepEqual(Object.keys(end.status ?? {}).sort(), ['conditions', 'nodes', 'observedGeneration', 'readyNodes']);

  // What the watch saw: once written, a part is always there, and always one its writer wrote.
  await eventually('the watch caught up', () => seen.some((c) => c.metadata?.resourceVersion === end.metadata?.resourceVersion));
  let orchestratorWrote = false;
  let clusterWrote = false;
  let round = -1;
  for (const c of seen) {
    const at = `at resourceVersion ${c.metadata?.resourceVersion}`;
    const part = orchestratorPartOf(c);
    orchestratorWrote ||= part !== undefined;
    if (orchestratorWrote) {
      assert.ok(part !== undefined && applied.has(part), `${at}: the second writer's part is ${part ?? 'gone'}`);
      assert.ok(applied.get(part)! >= round, `${at}: round ${applied.get(part)} after round ${round}: an older state written back`);
      round = applied.get(part)!;
    }
    clusterWrote ||= syncedOf(c) !== undefined;
    if (clusterWrote) {
      assert.ok(syncedOf(c), `${at}: Synced gone`);
      assert.equal(typeof c.status?.readyNodes, 'number', `${at}: readyNodes gone`);
      assert.equal(typeof c.status?.observedGeneration, 'number', `${at}: observedGeneration gone`);
    }
  }
  assert.ok(orchestratorWrote && clusterWrote);
  assert.ok(seen.length > rounds, `${seen.length} states seen for ${rounds} rounds`);

  // Steady state: reconciles go on, the object is not written again.
  const before = op.reconciles.mark();
  await eventually('three more reconciles', () => op.reconciles.mark() >= before + 3);
  assert.equal((await get()).metadata?.resourceVersion, end.metadata?.resourceVersion);
});

test('a status the anchor wrote keeps its conditions and nodes; the cluster controller adds its part and takes it from the old writer', async (t) => {
  const { namespace: ns, client } = await operatorTest(t);
  const ref = { ...CLUSTER, namespace: ns, name: 'my-db' };
  const anchor = parse(
    readFileSync(new URL('../../fixtures/anchor-v0.6.3/mysqlcluster-after-reconcile.yaml', import.meta.url), 'utf8').replaceAll(
      '<T>',
      '2025-06-01T00:00:00Z',
    ),
  ) as Cluster;
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-db-secret', namespace: ns },
    stringData: { ROOT_PASSWORD: 'pw' },
  } as KubeObject);
  // Created and its status written before the operator sees it (a cluster stopped here sees it the same).
  await client.create<Cluster>({
    ...CLUSTER,
    metadata: { name: 'my-db', namespace: ns, annotations: anchor.metadata?.annotations },
    spec: anchor.spec,
  } as Cluster);
  const legacy = new KubeClient(client.kubeConfig, { userAgent: 'mysql-operator/v0.6.3', fieldManager: LEGACY_FIELD_MANAGER });
  t.after(() => legacy.close());
  // The operator may mark the new-looking cluster (mysql.presslabs.org/defaults) between the two
  // writes: the anchor's write is retried on the version it sees, as a client's would be.
  await eventually('the anchor status written', async () => {
    const fresh = await client.get<Cluster>(ref);
    await legacy.updateStatus({ ...fresh, status: anchor.status });
    return true;
  });

  const c = await eventually('Synced', async () => {
    const cur = await client.get<Cluster & { metadata: { managedFields?: ManagedFieldsEntry[] } }>(ref);
    return syncedOf(cur)?.status === 'True' && cur.status?.observedGeneration === cur.metadata?.generation ? cur : undefined;
  });
  assert.deepEqual(c.status?.nodes, anchor.status?.nodes, 'nodes[] as the anchor left them');
  assert.deepEqual(
    c.status?.conditions?.filter((x) => x.type !== CLUSTER_CONDITION.synced),
    anchor.status?.conditions,
  );
  assert.equal(c.status?.readyNodes, 0, 'no pod is ready here');
  const old = c.metadata.managedFields?.find((e) => e.manager === LEGACY_FIELD_MANAGER && e.subresource === 'status');
  const oldStatus = old?.fieldsV1?.['f:status'] ?? {};
  assert.equal(oldStatus['f:readyNodes'], undefined, "readyNodes is the cluster controller's alone");
  assert.ok(oldStatus['f:nodes'], "the orchestrator controller's part stays with the old writer until that controller writes it");
  const mine = c.metadata.managedFields?.find((e) => e.manager === CLUSTER_STATUS_OWNERS.cluster.fieldManager);
  assert.deepEqual([mine?.operation, mine?.subresource], ['Apply', 'status']);
});
