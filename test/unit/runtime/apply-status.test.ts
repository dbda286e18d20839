// The pure part of applyStatus: which entries of managedFields hold part of an owner's status,
// and how that part is handed over to the owner's Apply entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { handOver, splitOwned, type StatusOwner } from '../../../src/runtime/kube/apply-status.ts';
import type { ManagedFieldsEntry } from '../../../src/runtime/kube/types.ts';

const cluster: StatusOwner = {
  fieldManager: 'mysql-operator-cluster',
  fields: ['readyNodes', 'observedGeneration'],
  conditions: ['Synced'],
};
const orchestrator: StatusOwner = { fieldManager: 'mysql-operator-orchestrator', fields: ['nodes'], conditions: ['Ready', 'ReadOnly'] };

// What a PUT on /status by the anchor left, once the lists were made list maps.
const legacy: ManagedFieldsEntry = {
  manager: 'mysql-operator',
  operation: 'Update',
  apiVersion: 'mysql.presslabs.org/v1alpha1',
  time: '2025-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  subresource: 'status',
  fieldsV1: {
    'f:status': {
      '.': {},
      'f:readyNodes': {},
      'f:conditions': {
        '.': {},
        'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} },
        'k:{"type":"Synced"}': { '.': {}, 'f:status': {}, 'f:type': {} },
      },
      'f:nodes': { '.': {}, 'k:{"name":"n0"}': { '.': {}, 'f:name': {} } },
    },
  },
};

test("splitOwned takes the owner's fields and conditions, leaving the rest and the list nodes", () => {
  const { owned, rest } = splitOwned(legacy.fieldsV1!, cluster);
  assert.deepEqual(owned, {
    'f:status': { 'f:readyNodes': {}, 'f:conditions': { 'k:{"type":"Synced"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
  });
  assert.deepEqual(rest, {
    'f:status': {
      '.': {},
      'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } },
      'f:nodes': { '.': {}, 'k:{"name":"n0"}': { '.': {}, 'f:name': {} } },
    },
  });
  assert.deepEqual(splitOwned({ 'f:metadata': { 'f:labels': {} } }, cluster), {
    owned: undefined,
    rest: { 'f:metadata': { 'f:labels': {} } },
  });
  const all = splitOwned({ 'f:status': { 'f:readyNodes': {} } }, cluster);
  assert.deepEqual(all, { owned: { 'f:status': { 'f:readyNodes': {} } }, rest: undefined });
  // Containers left with no children go, `.` or not: a bare member would read as atomic ownership.
  const emptied = splitOwned(
    { 'f:status': { '.': {}, 'f:readyNodes': {}, 'f:conditions': { '.': {}, 'k:{"type":"Synced"}': { '.': {} } } } },
    cluster,
  );
  assert.equal(emptied.rest, undefined);
});

test("handOver moves each Update entry's share into the owner's Apply entry; other Apply entries stay", () => {
  const mine: ManagedFieldsEntry = {
    manager: 'mysql-operator-cluster',
    operation: 'Apply',
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    subresource: 'status',
    fieldsV1: {
      'f:status': {
        'f:observedGeneration': {},
        'f:readyNodes': {},
        'f:conditions': { 'k:{"type":"Synced"}': { '.': {}, 'f:type': {}, 'f:reason': {} } },
      },
    },
  };
  const other: ManagedFieldsEntry = { ...mine, manager: 'mysql-operator-orchestrator', fieldsV1: { 'f:status': { 'f:nodes': {} } } };
  const out = handOver([mine, other, legacy], cluster)!;
  assert.deepEqual(
    out.map((e) => e.manager),
    ['mysql-operator-cluster', 'mysql-operator-orchestrator', 'mysql-operator'],
  );
  assert.deepEqual(out[0]!.fieldsV1, {
    'f:status': {
      'f:observedGeneration': {},
      'f:readyNodes': {},
      'f:conditions': { 'k:{"type":"Synced"}': { '.': {}, 'f:type': {}, 'f:reason': {}, 'f:status': {} } },
    },
  });
  assert.equal(out[0]!.time, mine.time);
  assert.deepEqual(out[1], other);
  assert.equal(out[2]!.fieldsV1!['f:status']!['f:readyNodes'], undefined);
  assert.equal(handOver(out, cluster), undefined, 'nothing left to hand over: one request per write from now on');
});

test("handOver of the orchestrator's part takes nodes whole and its conditions; an entry left empty goes", () => {
  const out = handOver([legacy], orchestrator)!;
  const mine = out.find((e) => e.manager === 'mysql-operator-orchestrator')!;
  assert.deepEqual([mine.operation, mine.subresource, mine.apiVersion], ['Apply', 'status', 'mysql.presslabs.org/v1alpha1']);
  assert.deepEqual(Object.keys(mine.fieldsV1!['f:status']!).sort(), ['f:conditions', 'f:nodes']);
  assert.deepEqual(Object.keys(mine.fieldsV1!['f:status']!['f:conditions']!), ['k:{"type":"Ready"}']);
  const left = handOver([{ ...legacy, fieldsV1: { 'f:status': { 'f:nodes': {} } } }], orchestrator)!;
  assert.deepEqual(
    left.map((e) => e.manager),
    ['mysql-operator-orchestrator'],
  );
});
