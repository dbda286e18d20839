import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_SCHEMA, crSchemaInfo } from '../../../sandbox/apiserver/list-types.ts';
import { difference, managedFieldsForUpdate, requestedEntries, serverSideApply } from '../../../sandbox/apiserver/managed-fields.ts';
import type { Json } from '../../support/json.ts';

const CR = { schema: crSchemaInfo(undefined), builtin: false };

test('an Update on create owns every field it wrote, with "." on new maps', () => {
  const obj = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', labels: { app: 'y' } }, spec: { replicas: 1, conf: { k: 'v' } } };
  const [entry] = managedFieldsForUpdate(undefined, obj, 'me', undefined, 'x/v1', CR);
  assert.deepEqual(entry!.fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': { '.': {}, 'f:conf': { '.': {}, 'f:k': {} }, 'f:replicas': {} },
  });
});

test('a later Update by another manager takes the fields it changed from the first', () => {
  const v1 = { metadata: { name: 'a', managedFields: undefined as unknown }, spec: { replicas: 1, secretName: 's' } };
  v1.metadata.managedFields = managedFieldsForUpdate(undefined, v1, 'first', undefined, 'x/v1', CR);
  const v2 = { ...v1, spec: { replicas: 2, secretName: 's' } };
  const entries = managedFieldsForUpdate(v1, v2, 'second', undefined, 'x/v1', CR);
  const first = entries.find((e) => e.manager === 'first')!;
  const second = entries.find((e) => e.manager === 'second')!;
  assert.deepEqual(first.fieldsV1, { 'f:spec': { '.': {}, 'f:secretName': {} } });
  assert.deepEqual(second.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
});

test('built-in lists with merge keys are tracked per item (k:{...}); atomic structs are leaves', () => {
  const pod = {
    spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] },
  };
  const [entry] = managedFieldsForUpdate(undefined, pod, 'me', undefined, 'v1', { schema: BUILTIN_SCHEMA, builtin: true });
  assert.deepEqual(entry!.fieldsV1, {
    'f:spec': {
      'f:containers': {
        'k:{"name":"c"}': {
          '.': {},
          'f:env': { '.': {}, 'k:{"name":"E"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:secretKeyRef': {} } } },
          'f:image': {},
          'f:name': {},
        },
      },
    },
  });
});

test('difference: a leaf in the subtrahend removes the whole subtree', () => {
  assert.equal(difference({ 'f:a': {} }, {}), undefined);
  assert.deepEqual(difference({ '.': {}, 'f:a': {}, 'f:b': {} }, { 'f:a': {} }), { '.': {}, 'f:b': {} });
});

test('apply: conflicts with another owner of a differing value unless forced; drops fields it no longer names', () => {
  const live = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a', managedFields: [] as unknown[] },
    spec: { replicas: 1, secretName: 's' },
  };
  live.metadata.managedFields = managedFieldsForUpdate(undefined, live, 'editor', undefined, 'x/v1', CR);
  const applied = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 5, extra: 'e' } };
  assert.throws(
    () => serverSideApply(live, applied, 'applier', false, 'x/v1', undefined, CR),
    (e: { code?: number; body?: Json }) =>
      e.code === 409 && e.body.details.causes[0].field === '.spec.replicas' && e.body.details.causes[0].reason === 'FieldManagerConflict',
  );
  const forced = serverSideApply(live, applied, 'applier', true, 'x/v1', undefined, CR);
  assert.deepEqual(forced.object.spec, { replicas: 5, secretName: 's', extra: 'e' });
  const withApply = { ...forced.object, metadata: { ...forced.object.metadata, managedFields: forced.managedFields } };
  const again = serverSideApply(
    withApply,
    { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 5 } },
    'applier',
    false,
    'x/v1',
    undefined,
    CR,
  );
  assert.deepEqual(again.object.spec, { replicas: 5, secretName: 's' }, "extra was only the applier's: removed");
});

const STATUS_SCHEMA = crSchemaInfo({
  type: 'object',
  properties: {
    status: {
      type: 'object',
      properties: {
        readyNodes: { type: 'integer' },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
        },
      },
    },
  },
});
const ON_STATUS = { schema: STATUS_SCHEMA, builtin: false, topLevel: (k: string) => k === 'status' };
const cluster = (status: Record<string, unknown>, managedFields: unknown[] = []) => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { name: 'a', managedFields },
  spec: { replicas: 1 },
  status,
});

test('apply on /status: the conflict names the subresource; an Update of the same name is another manager', () => {
  const live = cluster({ readyNodes: 1 });
  live.metadata.managedFields = managedFieldsForUpdate(undefined, live, 'op', 'status', 'x/v1', ON_STATUS);
  const applied = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, status: { readyNodes: 2 } };
  assert.throws(
    () => serverSideApply(live, applied, 'op', false, 'x/v1', 'status', ON_STATUS),
    (e: { body?: Json }) =>
      e.body.message === 'Apply failed with 1 conflict: conflict with "op" with subresource "status" using x/v1: .status.readyNodes' &&
      e.body.details.causes[0].field === '.status.readyNodes',
  );
  const forced = serverSideApply(live, applied, 'op', true, 'x/v1', 'status', ON_STATUS);
  assert.deepEqual(
    forced.managedFields.map((e) => [e.manager, e.operation, e.subresource, e.fieldsV1]),
    [
      ['op', 'Apply', 'status', { 'f:status': { 'f:readyNodes': {} } }],
      ['op', 'Update', 'status', { 'f:status': {} }],
    ],
  );
});

test('apply time: moves when the object changes, stays otherwise; a first apply that changes nothing has none', () => {
  const live = cluster({ readyNodes: 1 });
  live.metadata.managedFields = managedFieldsForUpdate(undefined, live, 'writer', 'status', 'x/v1', ON_STATUS);
  const same = serverSideApply(
    live,
    { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, status: { readyNodes: 1 } },
    'applier',
    false,
    'x/v1',
    'status',
    ON_STATUS,
  );
  const entry = same.managedFields.find((e) => e.manager === 'applier')!;
  assert.equal(entry.time, undefined);
  assert.deepEqual(Object.keys(entry), ['manager', 'operation', 'apiVersion', 'fieldsType', 'fieldsV1', 'subresource']);
  const old = { ...entry, time: '2020-01-01T00:00:00Z' };
  const again = serverSideApply(
    cluster({ readyNodes: 1 }, [old]),
    { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, status: { readyNodes: 1 } },
    'applier',
    false,
    'x/v1',
    'status',
    ON_STATUS,
  );
  assert.equal(again.managedFields[0]!.time, '2020-01-01T00:00:00Z', 'nothing changed: the time stays');
  const moved = serverSideApply(
    cluster({ readyNodes: 1 }, [old]),
    { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, status: { readyNodes: 2 } },
    'applier',
    false,
    'x/v1',
    'status',
    ON_STATUS,
  );
  assert.notEqual(moved.managedFields[0]!.time, '2020-01-01T00:00:00Z');
});

test('a list owned whole while it was atomic stays owned as a node once the schema makes it a list map', () => {
  // Written by an Update when conditions were atomic: the writer owns the list as one leaf.
  // structured-merge-diff does not split it into items (a real v1.26 kept `f:conditions: {}`), so
  // the leaf stands for the list node only: an applier of an item does not conflict with it.
  const legacy = {
    manager: 'legacy',
    operation: 'Update' as const,
    apiVersion: 'x/v1',
    time: '2020-01-01T00:00:00Z',
    fieldsType: 'FieldsV1' as const,
    fieldsV1: { 'f:status': { '.': {}, 'f:conditions': {} } },
    subresource: 'status',
  };
  const live = cluster({ conditions: [{ type: 'Ready', status: 'True' }] }, [legacy]);
  const applied = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } };
  const result = serverSideApply(live, applied, 'new', false, 'x/v1', 'status', ON_STATUS);
  assert.deepEqual(result.object.status.conditions, [{ type: 'Ready', status: 'False' }]);
  assert.deepEqual(result.managedFields.find((e) => e.manager === 'legacy')!.fieldsV1, { 'f:status': { '.': {}, 'f:conditions': {} } });
});

test('a write of the main resource may set managedFields: [{}] resets them, a list replaces them', () => {
  assert.deepEqual(requestedEntries([{}]), []);
  assert.equal(requestedEntries([]), undefined);
  assert.equal(requestedEntries([{ manager: 'x' }]), undefined, 'malformed: the stored ones stay');
  const entry = {
    manager: 'm',
    operation: 'Apply',
    apiVersion: 'x/v1',
    time: '2026-01-02T03:04:05.000Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': {} },
  };
  assert.deepEqual(requestedEntries([entry]), [{ ...entry, time: '2026-01-02T03:04:05Z' }]);
});

test("apply merges a list map in structured-merge-diff's order: a new item goes before the next shared one", () => {
  const conditions = (...types: string[]) => types.map((type) => ({ type, status: 'True' }));
  const merge = (live: string[], applied: string[]) =>
    (
      serverSideApply(
        cluster({ conditions: conditions(...live) }),
        { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, status: { conditions: conditions(...applied) } },
        'm',
        true,
        'x/v1',
        'status',
        ON_STATUS,
      ).object.status.conditions as { type: string }[]
    ).map((c) => c.type);
  assert.deepEqual(merge(['A', 'C'], ['A', 'B', 'C']), ['A', 'B', 'C']);
  assert.deepEqual(merge(['S', 'A'], ['B', 'A']), ['S', 'B', 'A']);
  assert.deepEqual(merge(['A', 'S'], ['A', 'B']), ['A', 'S', 'B']);
  assert.deepEqual(merge(['C', 'A'], ['A', 'C']), ['A', 'C'], 'shared items take the applied order');
});

test("apply of an empty list map drops the applier's items, and an applier that stops naming a list keeps the items others own", () => {
  const apply = (live: ReturnType<typeof cluster>, manager: string, conditions: string[]) => {
    const r = serverSideApply(
      live,
      {
        apiVersion: 'x/v1',
        kind: 'X',
        metadata: { name: 'a' },
        status: { conditions: conditions.map((type) => ({ type, status: 'True' })) },
      },
      manager,
      true,
      'x/v1',
      'status',
      ON_STATUS,
    );
    return cluster(r.object.status, r.managedFields);
  };
  const types = (o: ReturnType<typeof cluster>) => (o.status.conditions as { type: string }[]).map((c) => c.type);
  const mine = apply(cluster({}), 'a', ['Mine']);
  assert.deepEqual(types(apply(mine, 'a', [])), [], 'applied last time, not now, owned by no one else: removed');
  const emptied = apply(apply(apply(cluster({}), 'a', []), 'c', ['Theirs']), 'a', ['Mine']);
  assert.deepEqual(types(emptied), ['Theirs', 'Mine'], "the empty list it applied before does not cover the other applier's item");
  assert.deepEqual(types(apply(emptied, 'a', [])), ['Theirs']);
});
