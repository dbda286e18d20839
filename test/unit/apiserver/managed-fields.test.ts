import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_SCHEMA, crSchemaInfo } from '../../../sandbox/apiserver/list-types.ts';
import { difference, managedFieldsForUpdate, serverSideApply } from '../../../sandbox/apiserver/managed-fields.ts';

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
  const pod = { spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] } };
  const [entry] = managedFieldsForUpdate(undefined, pod, 'me', undefined, 'v1', { schema: BUILTIN_SCHEMA, builtin: true });
  assert.deepEqual(entry!.fieldsV1, {
    'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:env': { '.': {}, 'k:{"name":"E"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:secretKeyRef': {} } } }, 'f:image': {}, 'f:name': {} } } },
  });
});

test('difference: a leaf in the subtrahend removes the whole subtree', () => {
  assert.equal(difference({ 'f:a': {} }, {}), undefined);
  assert.deepEqual(difference({ '.': {}, 'f:a': {}, 'f:b': {} }, { 'f:a': {} }), { '.': {}, 'f:b': {} });
});

test('apply: conflicts with another owner of a differing value unless forced; drops fields it no longer names', () => {
  const live = {
    apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', managedFields: [] as unknown[] }, spec: { replicas: 1, secretName: 's' },
  };
  live.metadata.managedFields = managedFieldsForUpdate(undefined, live, 'editor', undefined, 'x/v1', CR);
  const applied = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 5, extra: 'e' } };
  assert.throws(() => serverSideApply(live, applied, 'applier', false, 'x/v1', undefined, CR), (e: { code?: number; body?: any }) =>
    e.code === 409 && e.body.details.causes[0].field === '.spec.replicas' && e.body.details.causes[0].reason === 'FieldManagerConflict');
  const forced = serverSideApply(live, applied, 'applier', true, 'x/v1', undefined, CR);
  assert.deepEqual(forced.object.spec, { replicas: 5, secretName: 's', extra: 'e' });
  const withApply = { ...forced.object, metadata: { ...forced.object.metadata, managedFields: forced.managedFields } };
  const again = serverSideApply(withApply, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 5 } }, 'applier', false, 'x/v1', undefined, CR);
  assert.deepEqual(again.object.spec, { replicas: 5, secretName: 's' }, 'extra was only the applier\'s: removed');
});
