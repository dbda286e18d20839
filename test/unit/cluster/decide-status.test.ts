// The cluster controller's part of MysqlCluster.status, decided from the gathered state alone:
// only its own fields, always all of them, and nothing when they already hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CLUSTER_CONDITION,
  CLUSTER_REASONS,
  CLUSTER_STATUS_OWNERS,
  mysqlCluster,
  type MysqlClusterStatus,
} from '../../../src/api/index.ts';
import { decideStatus, syncConditionChanges } from '../../../src/controllers/cluster/decide-status.ts';
import { cluster } from './builders.ts';

const ok = { ok: true, reason: CLUSTER_REASONS.resourcesSynced, message: 'in sync' };
const T0 = new Date('2026-01-01T00:00:00Z');
const withStatus = (status: MysqlClusterStatus, generation = 4) => ({ ...cluster({}, { generation }), status });

// What the orchestrator controller owns: the cluster controller must never name it.
const orchestratorPart: MysqlClusterStatus = {
  conditions: [
    {
      type: CLUSTER_CONDITION.ready,
      status: 'True',
      reason: CLUSTER_REASONS.clusterReady,
      message: 'Cluster is ready',
      lastTransitionTime: '2025-01-01T00:00:00Z',
    },
  ],
  nodes: [
    { name: 'my-db-mysql-0.mysql.default', conditions: [{ type: 'Master', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' }] },
  ],
};

test("a first status names readyNodes, observedGeneration and Synced, and nothing of the orchestrator's part", () => {
  const s = decideStatus(withStatus(orchestratorPart), 2, ok, T0)!;
  assert.deepEqual(s, {
    readyNodes: 2,
    observedGeneration: 4,
    conditions: [
      { type: CLUSTER_CONDITION.synced, status: 'True', reason: ok.reason, message: 'in sync', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ],
  });
  const owner = CLUSTER_STATUS_OWNERS.cluster;
  for (const k of Object.keys(s)) assert.ok(k === 'conditions' || (owner.fields as readonly string[]).includes(k), k);
  assert.ok(s.conditions.every((c) => (owner.conditions as readonly string[]).includes(c.type)));
});

test("nothing to write when the three fields hold, whatever the orchestrator's part says", () => {
  const first = decideStatus(withStatus(orchestratorPart), 2, ok, T0)!;
  const current = withStatus({
    ...orchestratorPart,
    readyNodes: 2,
    observedGeneration: 4,
    conditions: [...orchestratorPart.conditions!, ...first.conditions],
  });
  assert.equal(decideStatus(current, 2, ok, new Date('2026-06-01T00:00:00Z')), undefined);
});

test('any one of the three changing gives all three again, Synced keeping its time while its status stays', () => {
  const synced = decideStatus(withStatus({}), 2, ok, T0)!.conditions[0];
  const current = withStatus({ readyNodes: 2, observedGeneration: 4, conditions: [synced] });
  const later = new Date('2026-03-01T00:00:00Z');
  const moreReady = decideStatus(current, 3, ok, later)!;
  assert.deepEqual(moreReady, { readyNodes: 3, observedGeneration: 4, conditions: [synced] });
  const newGeneration = decideStatus({ ...current, metadata: { ...current.metadata, generation: 5 } }, 2, ok, later)!;
  assert.equal(newGeneration.observedGeneration, 5);
  assert.equal(newGeneration.conditions[0].lastTransitionTime, '2026-01-01T00:00:00Z');
  const otherMessage = decideStatus(current, 2, { ...ok, message: 'other words' }, later)!;
  assert.equal(otherMessage.conditions[0].message, 'other words');
  assert.equal(otherMessage.conditions[0].lastTransitionTime, '2026-01-01T00:00:00Z', 'same status: same transition time');
  const failed = decideStatus(current, 2, { ok: false, reason: CLUSTER_REASONS.userSecretNotFound, message: 'gone' }, later)!;
  assert.deepEqual(failed.conditions[0], {
    type: 'Synced',
    status: 'False',
    reason: 'UserSecretNotFound',
    message: 'gone',
    lastTransitionTime: '2026-03-01T00:00:00Z',
  });
});

test('an Event is due only when the Synced condition changes reason or message', () => {
  const synced = decideStatus(withStatus({}), 2, ok, T0)!.conditions[0];
  const current = withStatus({ conditions: [synced] });
  assert.equal(syncConditionChanges(current, ok), false);
  assert.equal(syncConditionChanges(current, { ...ok, message: 'x' }), true);
  assert.equal(syncConditionChanges(withStatus({}), ok), true);
});

test('the owners of MysqlCluster.status share nothing and together own every field and condition', () => {
  const owners = Object.values(CLUSTER_STATUS_OWNERS);
  const fields = owners.flatMap((o) => [...o.fields]);
  const conditions = owners.flatMap((o) => [...o.conditions]);
  assert.equal(new Set(fields).size, fields.length);
  assert.equal(new Set(conditions).size, conditions.length);
  assert.equal(new Set(owners.map((o) => o.fieldManager)).size, owners.length);
  assert.deepEqual([...fields, 'conditions'].sort(), Object.keys(mysqlCluster.status.properties ?? {}).sort());
  assert.deepEqual([...conditions].sort(), Object.values(CLUSTER_CONDITION).sort());
});
