// Server-side apply on the status subresource of a custom resource, as two controllers use it to
// share one MysqlCluster status: list maps merged by key (conditions by type, nodes by name, a
// node's conditions by type), one managedFields entry per manager with subresource "status",
// fields a manager stops naming removed, conflicts and force, and what happens to fields an Update
// (a PUT on /status, the anchor's way) owns. Runs against the test server or TEST_KUBECONFIG.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { ConflictError } from '../../../src/runtime/kube/errors.ts';
import type { KubeObject, ManagedFieldsEntry, ObjectRef } from '../../../src/runtime/kube/types.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';
import { cluster, raw } from './helpers.ts';
import type { Json } from '../../support/json.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = KubeObject & {
  spec?: Json;
  status?: Json;
  metadata: { managedFields?: ManagedFieldsEntry[]; resourceVersion?: string; generation?: number };
};

const T = '2026-01-01T00:00:00Z';
const cond = (type: string, status = 'True', extra: Record<string, string> = {}) => ({ type, status, lastTransitionTime: T, ...extra });
const node = (name: string, master: boolean) => ({
  name,
  conditions: [cond('Master', master ? 'True' : 'False'), cond('Lagged', 'False')],
});

async function setup(
  t: TestContext,
): Promise<{ client: KubeClient; ref: ObjectRef; apply: (manager: string, status: unknown, force?: boolean) => Promise<Obj> }> {
  const env = await kubeEnv(t);
  const client = new KubeClient(env.kubeConfig, { userAgent: 'status-apply-test/1.0', fieldManager: 'status-apply-test' });
  t.after(() => client.close());
  await client.create(cluster('c1', {}, { namespace: env.namespace }) as KubeObject);
  const ref = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: env.namespace, name: 'c1' };
  const apply = (manager: string, status: unknown, force = false) =>
    client.patch<Obj>(
      ref,
      { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: 'c1' }, status },
      { type: 'apply', subresource: 'status', fieldManager: manager, force },
    );
  return { client, ref, apply };
}

const entry = (o: Obj, manager: string, operation = 'Apply') =>
  o.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);
const types = (list: Array<{ type: string }> | undefined) => (list ?? []).map((c) => c.type);

test('two managers apply their parts of one status: list maps merge by key, each owns its own entries under subresource status', async (t) => {
  const { apply } = await setup(t);
  const a = await apply('writer-a', { readyNodes: 1, conditions: [cond('Synced', 'True', { reason: 'ResourcesSynced', message: 'ok' })] });
  assert.equal(a.metadata.generation, 1, 'a status write leaves generation');
  const b = await apply('writer-b', {
    nodes: [node('n0', true), node('n1', false)],
    conditions: [cond('Ready', 'False', { reason: 'StatefulSetNotReady', message: 'no' })],
  });
  assert.equal(b.status.readyNodes, 1, "writer-a's field kept");
  assert.deepEqual(types(b.status.conditions), ['Synced', 'Ready']);
  assert.deepEqual(
    b.status.nodes.map((n: { name: string }) => n.name),
    ['n0', 'n1'],
  );
  assert.equal(b.spec.replicas, 1);
  assert.deepEqual(entry(b, 'writer-a'), {
    manager: 'writer-a',
    operation: 'Apply',
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    time: entry(b, 'writer-a')!.time,
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        'f:conditions': {
          'k:{"type":"Synced"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
        },
        'f:readyNodes': {},
      },
    },
    subresource: 'status',
  });
  const nodeFields = {
    '.': {},
    'f:conditions': {
      'k:{"type":"Lagged"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
      'k:{"type":"Master"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
    },
    'f:name': {},
  };
  assert.deepEqual(entry(b, 'writer-b')!.fieldsV1, {
    'f:status': {
      'f:conditions': {
        'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
      },
      'f:nodes': { 'k:{"name":"n0"}': nodeFields, 'k:{"name":"n1"}': nodeFields },
    },
  });

  // A node's conditions merge by type too: writer-b changes one and drops a node; writer-a's part stays.
  const b2 = await apply('writer-b', {
    nodes: [{ name: 'n0', conditions: [cond('Master', 'False'), cond('Lagged', 'True')] }],
    conditions: [cond('Ready', 'True', { reason: 'ClusterReady', message: 'yes' })],
  });
  assert.deepEqual(b2.status.nodes, [{ name: 'n0', conditions: [cond('Master', 'False'), cond('Lagged', 'True')] }]);
  assert.deepEqual(
    b2.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]),
    [
      ['Synced', 'True'],
      ['Ready', 'True'],
    ],
  );
  assert.equal(b2.status.readyNodes, 1);

  // What a manager stops naming goes; the other manager's fields stay.
  const a2 = await apply('writer-a', { conditions: [cond('Synced', 'True', { reason: 'ResourcesSynced', message: 'ok' })] });
  assert.equal(a2.status.readyNodes, undefined);
  assert.deepEqual(types(a2.status.conditions), ['Synced', 'Ready']);
  assert.equal(a2.status.nodes.length, 1);
  const b3 = await apply('writer-b', { nodes: [node('n0', true)] });
  assert.deepEqual(types(b3.status.conditions), ['Synced'], "Ready was writer-b's alone");
});

test("an identical apply writes nothing; a changed one moves the manager's time", async (t) => {
  const { apply } = await setup(t);
  const first = await apply('writer-a', { readyNodes: 2 });
  const again = await apply('writer-a', { readyNodes: 2 });
  assert.equal(again.metadata.resourceVersion, first.metadata.resourceVersion);
  assert.equal(entry(again, 'writer-a')!.time, entry(first, 'writer-a')!.time);
});

test('a condition another manager owns: 409 naming it and its subresource, force takes it over', async (t) => {
  const { apply } = await setup(t);
  await apply('writer-a', { conditions: [cond('Synced', 'True')] });
  const err = await apply('writer-b', { conditions: [cond('Synced', 'False')] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConflictError, String(err));
  assert.equal(
    err.status?.message,
    'Apply failed with 1 conflict: conflict with "writer-a" with subresource "status": .status.conditions[type="Synced"].status',
  );
  assert.deepEqual(err.status?.details?.causes, [
    {
      reason: 'FieldManagerConflict',
      message: 'conflict with "writer-a" with subresource "status"',
      field: '.status.conditions[type="Synced"].status',
    },
  ]);
  const same = await apply('writer-b', { conditions: [cond('Synced', 'True')] });
  assert.ok(
    entry(same, 'writer-b')!.fieldsV1!['f:status']!['f:conditions']!['k:{"type":"Synced"}']!['f:status'],
    'the same value: no conflict, owned by both',
  );
  assert.ok(entry(same, 'writer-a')!.fieldsV1!['f:status']!['f:conditions']!['k:{"type":"Synced"}']!['f:status']);
  const forced = await apply('writer-b', { conditions: [cond('Synced', 'False')] }, true);
  assert.equal(forced.status.conditions[0].status, 'False');
  assert.equal(
    entry(forced, 'writer-a')!.fieldsV1!['f:status']!['f:conditions']!['k:{"type":"Synced"}']!['f:status'],
    undefined,
    'taken from writer-a',
  );
  assert.ok(
    entry(forced, 'writer-a')!.fieldsV1!['f:status']!['f:conditions']!['k:{"type":"Synced"}']!['f:type'],
    'the unchanged key stays shared',
  );
});

test('fields an Update owns (a PUT on /status): the same value is shared, another value conflicts and force takes it', async (t) => {
  const { client, ref, apply } = await setup(t);
  const cur = await client.get<Obj>(ref);
  const old = new KubeClient(client.kubeConfig, { userAgent: 'status-apply-test/1.0', fieldManager: 'mysql-operator' });
  t.after(() => old.close());
  await old.updateStatus({
    ...cur,
    status: { readyNodes: 3, conditions: [cond('Ready', 'True')], nodes: [node('n0', true), node('n1', false)] },
  });
  const shared = await apply('mysql-operator-orchestrator', { nodes: [node('n0', true), node('n1', false)] });
  const legacy = entry(shared, 'mysql-operator', 'Update')!;
  assert.equal(legacy.subresource, 'status');
  assert.ok(legacy.fieldsV1!['f:status']!['f:nodes']!['k:{"name":"n1"}'], 'the Update still owns n1 too');
  // Because the Update still owns it, leaving n1 out does not remove it.
  const kept = await apply('mysql-operator-orchestrator', { nodes: [node('n0', true)] });
  assert.deepEqual(
    kept.status.nodes.map((n: { name: string }) => n.name),
    ['n0', 'n1'],
  );
  const err = await apply('mysql-operator-cluster', { readyNodes: 2 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConflictError);
  assert.match(
    err.status?.message ?? '',
    /^Apply failed with 1 conflict: conflict with "mysql-operator" with subresource "status" using mysql\.presslabs\.org\/v1alpha1: \.status\.readyNodes$/,
  );
  const taken = await apply('mysql-operator-cluster', { readyNodes: 2 }, true);
  assert.equal(taken.status.readyNodes, 2);
  assert.equal(entry(taken, 'mysql-operator', 'Update')!.fieldsV1!['f:status']!['f:readyNodes'], undefined);
});

test('a write of the main resource may rewrite managedFields; a status write may not', async (t) => {
  const { client, ref, apply } = await setup(t);
  const a = await apply('writer-a', { readyNodes: 2 });
  const entries = a.metadata.managedFields!.map((e) => (e.manager === 'writer-a' ? { ...e, manager: 'writer-z' } : e));
  const renamed = await client.patch<Obj>(
    ref,
    { metadata: { resourceVersion: a.metadata.resourceVersion, managedFields: entries } },
    { type: 'merge' },
  );
  assert.deepEqual(
    renamed.metadata.managedFields!.map((e) => [e.manager, e.operation]).sort(),
    entries.map((e) => [e.manager, e.operation]).sort(),
  );
  assert.equal(renamed.status.readyNodes, 2);
  const stale = await client
    .patch(ref, { metadata: { resourceVersion: a.metadata.resourceVersion, managedFields: [] } }, { type: 'merge' })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(stale instanceof ConflictError, 'guarded by resourceVersion');
  await client.patch<Obj>(
    ref,
    { metadata: { managedFields: [{ manager: 'nobody', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] } },
    { type: 'merge', subresource: 'status' },
  );
  assert.deepEqual(
    (await client.get<Obj>(ref)).metadata.managedFields!.map((e) => e.manager).sort(),
    entries.map((e) => e.manager).sort(),
    'ignored on /status',
  );
  const reset = await client.patch<Obj>(ref, { metadata: { managedFields: [{}] } }, { type: 'merge' });
  assert.equal(reset.metadata.managedFields, undefined, '[{}] clears them');
});

test('a list that was atomic becomes a list map: its Update owner keeps the list node, no item', async (t) => {
  const env = await kubeEnv(t, { crds: false });
  const client = new KubeClient(env.kubeConfig, { userAgent: 'status-apply-test/1.0' });
  t.after(() => client.close());
  // A CRD of its own, so a real cluster's MysqlCluster CRD is never touched.
  const group = `${env.namespace}.ssa.example.com`;
  const conditions = (map: boolean) => ({
    type: 'array',
    items: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, status: { type: 'string' } } },
    ...(map ? { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] } : {}),
  });
  const crd = (map: boolean, resourceVersion?: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}`, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object' }, status: { type: 'object', properties: { conditions: conditions(map) } } },
            },
          },
        },
      ],
    },
  });
  const crdRef = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${group}` };
  await client.create(crd(false) as KubeObject);
  try {
    const established = () =>
      eventually('CRD established', async () =>
        (await client.get<Obj>(crdRef)).status?.conditions?.some(
          (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
        ),
      );
    await established();
    const ref = { apiVersion: `${group}/v1`, kind: 'Widget', namespace: env.namespace, name: 'w' };
    const w = await eventually('Widget served', () =>
      client
        .create<Obj>({ apiVersion: ref.apiVersion, kind: 'Widget', metadata: { name: 'w', namespace: env.namespace }, spec: {} } as Obj)
        .catch(() => undefined),
    );
    const legacy = new KubeClient(env.kubeConfig, { userAgent: 'status-apply-test/1.0', fieldManager: 'legacy' });
    t.after(() => legacy.close());
    const written = await legacy.updateStatus<Obj>({
      ...w,
      status: {
        conditions: [
          { type: 'A', status: 'True' },
          { type: 'B', status: 'True' },
        ],
      },
    });
    assert.deepEqual(
      entry(written, 'legacy', 'Update')!.fieldsV1,
      { 'f:status': { '.': {}, 'f:conditions': {} } },
      'an atomic list is owned whole',
    );

    await client.update(crd(true, (await client.get<Obj>(crdRef)).metadata.resourceVersion) as KubeObject);
    await established();
    const body = JSON.stringify({
      apiVersion: ref.apiVersion,
      kind: 'Widget',
      metadata: { name: 'w' },
      status: { conditions: [{ type: 'A', status: 'False' }] },
    });
    const path = `/apis/${group}/v1/namespaces/${env.namespace}/widgets/w/status?fieldManager=new&force=true`;
    // A real server serves a changed schema a moment later: dry runs until the list merges by key.
    await eventually(
      'the list-map schema in force',
      async () =>
        (await raw(env.kubeConfig, 'PATCH', `${path}&dryRun=All`, { body, contentType: 'application/apply-patch+yaml' })).json?.status
          ?.conditions?.length === 2,
    );
    const applied = (await raw(env.kubeConfig, 'PATCH', path, { body, contentType: 'application/apply-patch+yaml' })).json as Obj;
    assert.deepEqual(applied.status.conditions, [
      { type: 'A', status: 'False' },
      { type: 'B', status: 'True' },
    ]);
    // structured-merge-diff leaves a list that became granular as it was: its former owner keeps
    // the list node and owns no item (a real v1.26 answered so), so nothing conflicted.
    assert.deepEqual(
      entry(applied, 'legacy', 'Update')!.fieldsV1,
      { 'f:status': { '.': {}, 'f:conditions': {} } },
      'the old owner keeps the list node',
    );
    assert.ok(
      entry(applied, 'new')!.fieldsV1!['f:status']!['f:conditions']!['k:{"type":"A"}']!['f:status'],
      'the applier owns the item it applied',
    );
  } finally {
    await client.delete(crdRef);
  }
});
