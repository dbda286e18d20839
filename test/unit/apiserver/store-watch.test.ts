import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeContinue } from '../../../sandbox/apiserver/objects.ts';
import { Store } from '../../../sandbox/apiserver/store.ts';
import { evalJsonPath } from '../../../sandbox/apiserver/jsonpath.ts';
import { humanDuration } from '../../../sandbox/apiserver/table.ts';
import { encodeJson } from '../../../sandbox/apiserver/encode.ts';

function obj(name: string, rv: number) {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(rv) } };
}

test('the event window keeps the newest events; older start RVs are refused', () => {
  const store = new Store(2, 0);
  for (let i = 0; i < 5; i++) {
    const rv = store.nextRv();
    store.put('configmaps', obj(`c${i}`, rv), 'ADDED');
  }
  assert.deepEqual(
    store.eventsSince(4)!.map((e) => e.rv),
    [5],
  );
  assert.equal(store.eventsSince(0), undefined);
  store.expireWindow();
  assert.equal(store.eventsSince(4), undefined);
  assert.deepEqual(store.eventsSince(5), []);
});

test('lists are in key order and can start after a key', () => {
  const store = new Store(10, 0);
  for (const n of ['b', 'a', 'c']) store.put('configmaps', obj(n, store.nextRv()), 'ADDED');
  assert.deepEqual(
    store.list('configmaps', 'ns').map((o) => o.metadata.name),
    ['a', 'b', 'c'],
  );
  assert.deepEqual(
    store.listFrom('configmaps', 'ns', 'a\u0000').map((o) => o.metadata.name),
    ['b', 'c'],
  );
});

test('continue tokens have the real format', () => {
  assert.equal(encodeContinue(211, 'c1\u0000'), 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjExLCJzdGFydCI6ImMxXHUwMDAwIn0');
});

test('JSONPath of printer columns: fields, indices, filters', () => {
  const o = {
    status: {
      conditions: [
        { type: 'A', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
    },
    spec: { l: [1, 2] },
  };
  assert.deepEqual(evalJsonPath(o, '.status.conditions[?(@.type == "Ready")].status'), ['True']);
  assert.deepEqual(evalJsonPath(o, '.spec.l[1]'), [2]);
  assert.deepEqual(evalJsonPath(o, '.spec.missing'), []);
});

test('ages print like kubectl; JSON escapes like Go', () => {
  assert.equal(humanDuration(5_000), '5s');
  assert.equal(humanDuration(150_000), '2m30s');
  assert.equal(humanDuration(3 * 86_400_000), '3d');
  assert.equal(encodeJson({ f: '<nil>&' }), '{"f":"\\u003cnil\\u003e\\u0026"}\n');
});

test('a list at an older resourceVersion undoes the newer events', () => {
  const store = new Store(100, 0);
  const put = (name: string, v: string, type: 'ADDED' | 'MODIFIED') => {
    const rv = store.nextRv();
    store.put('configmaps', { ...obj(name, rv), data: { v } }, type);
    return rv;
  };
  put('a', '1', 'ADDED');
  const at = put('b', '1', 'ADDED');
  put('a', '2', 'MODIFIED');
  put('c', '1', 'ADDED');
  const last = store.get('configmaps', 'ns', 'b')!;
  store.remove('configmaps', { ...last, metadata: { ...last.metadata, resourceVersion: String(store.nextRv()) } });
  assert.deepEqual(
    store.listAt('configmaps', 'ns', at).map((o) => `${o.metadata.name}=${o.data.v}`),
    ['a=1', 'b=1'],
  );
  assert.deepEqual(
    store.listAt('configmaps', 'ns', at, 'a\u0000').map((o) => o.metadata.name),
    ['b'],
  );
  assert.deepEqual(
    store.list('configmaps', 'ns').map((o) => `${o.metadata.name}=${o.data.v}`),
    ['a=2', 'c=1'],
  );
});
