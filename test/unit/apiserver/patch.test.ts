import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPatch, mergePatch, strategicMerge } from '../../../sandbox/apiserver/patch.ts';
import type { Json } from '../../support/json.ts';

test('merge patch replaces, deletes with null, recurses into objects and replaces lists', () => {
  assert.deepEqual(mergePatch({ a: 1, b: { c: 1, d: 2 }, l: [1, 2] }, { a: null, b: { c: 3 }, l: [3] }), { b: { c: 3, d: 2 }, l: [3] });
});

test('JSON patch add/remove/replace/move/copy/test, and a failed test is a 422', () => {
  const doc = { a: { b: 1 }, l: [1, 2] };
  assert.deepEqual(
    jsonPatch(doc, [
      { op: 'test', path: '/a/b', value: 1 },
      { op: 'add', path: '/l/-', value: 3 },
      { op: 'remove', path: '/l/0' },
      { op: 'replace', path: '/a/b', value: 2 },
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'move', from: '/c/b', path: '/d' },
      { op: 'add', path: '/x~1y', value: true },
    ]),
    { a: { b: 2 }, l: [2, 3], c: {}, d: 2, 'x/y': true },
  );
  assert.deepEqual(doc, { a: { b: 1 }, l: [1, 2] }, 'the input is not changed');
  assert.throws(
    () => jsonPatch(doc, [{ op: 'test', path: '/a/b', value: 5 }]),
    (e: { code?: number }) => e.code === 422,
  );
  assert.throws(
    () => jsonPatch(doc, [{ op: 'remove', path: '/nope' }]),
    (e: { code?: number }) => e.code === 422,
  );
});

test('strategic merge: lists with merge keys merge by key, new items first; $patch delete and replace', () => {
  const sts = { spec: { template: { spec: { containers: [{ name: 'mysql', image: 'a', env: [{ name: 'A', value: '1' }] }] } } } };
  const out = strategicMerge(sts, {
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'mysql',
              env: [
                { name: 'B', value: '2' },
                { name: 'A', value: '9' },
              ],
            },
            { name: 'side', image: 'b' },
          ],
        },
      },
    },
  }) as Json;
  assert.deepEqual(
    out.spec.template.spec.containers.map((c: Json) => c.name),
    ['side', 'mysql'],
  );
  assert.deepEqual(out.spec.template.spec.containers[1].env, [
    { name: 'B', value: '2' },
    { name: 'A', value: '9' },
  ]);
  assert.equal(out.spec.template.spec.containers[1].image, 'a');
  const deleted = strategicMerge(sts, { spec: { template: { spec: { containers: [{ name: 'mysql', $patch: 'delete' }] } } } }) as Json;
  assert.deepEqual(deleted.spec.template.spec.containers, []);
  const replaced = strategicMerge({ spec: { a: 1, b: 2 } }, { spec: { $patch: 'replace', c: 3 } });
  assert.deepEqual(replaced, { spec: { c: 3 } });
});

test('strategic merge: lists without merge keys are replaced; finalizers merge as a set', () => {
  assert.deepEqual(strategicMerge({ spec: { args: ['a'] } }, { spec: { args: ['b'] } }), { spec: { args: ['b'] } });
  assert.deepEqual(strategicMerge({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: ['b', 'a'] } }), {
    metadata: { finalizers: ['a', 'b'] },
  });
  assert.deepEqual(
    strategicMerge({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }),
    { metadata: { finalizers: ['b'] } },
  );
});

test('strategic merge: $setElementOrder orders the merged list as kubectl apply asks', () => {
  const live = { spec: { containers: [{ name: 'c', env: [{ name: 'A', value: '1' }] }] } };
  const patch = {
    spec: {
      containers: [{ name: 'c', '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }], env: [{ name: 'B', value: '2' }] }],
      '$setElementOrder/containers': [{ name: 'c' }],
    },
  };
  const out = strategicMerge(live, patch) as Json;
  assert.deepEqual(out.spec.containers[0].env, [
    { name: 'A', value: '1' },
    { name: 'B', value: '2' },
  ]);
  assert.deepEqual(
    strategicMerge({ metadata: { finalizers: ['a'] } }, { metadata: { '$setElementOrder/finalizers': ['b', 'a'], finalizers: ['b'] } }),
    { metadata: { finalizers: ['b', 'a'] } },
  );
});
