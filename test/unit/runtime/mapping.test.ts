import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObjectCache } from '../../../src/runtime/cache.ts';
import { keyFromLabel, ownerKeys } from '../../../src/runtime/controller.ts';
import { informerId } from '../../../src/runtime/informer.ts';
import { objectKey, parseKey, type KubeObject } from '../../../src/runtime/kube/types.ts';

const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };

function obj(name: string, namespace: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...extra } };
}

describe('keys and mappings', () => {
  it('keys are namespace/name, or name for cluster-scoped objects, and parse back', () => {
    assert.equal(objectKey(obj('a', 'ns')), 'ns/a');
    assert.equal(objectKey({ metadata: { name: 'node-1' } }), 'node-1');
    assert.deepEqual(parseKey('ns/a'), { namespace: 'ns', name: 'a' });
    assert.deepEqual(parseKey('node-1'), { namespace: '', name: 'node-1' });
  });

  it('maps an owned object to owners of the primary kind and group, any version', () => {
    const o = obj('sts', 'ns', {
      ownerReferences: [
        { apiVersion: 'mysql.presslabs.org/v1beta1', kind: 'MysqlCluster', name: 'db', uid: '1', controller: true },
        { apiVersion: 'other.io/v1', kind: 'MysqlCluster', name: 'imposter', uid: '2' },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: '3' },
      ],
    });
    assert.deepEqual(ownerKeys(o, CLUSTER), ['ns/db']);
    assert.deepEqual(ownerKeys(obj('x', 'ns'), CLUSTER), []);
  });

  it('maps an object to the key named by a label', () => {
    const map = keyFromLabel('mysql.presslabs.org/cluster');
    assert.deepEqual(map(obj('pod', 'ns', { labels: { 'mysql.presslabs.org/cluster': 'db' } })), ['ns/db']);
    assert.deepEqual(map(obj('pod', 'ns')), []);
  });

  it('names one informer per kind, namespace and selector, whatever the selector order', () => {
    const a = informerId({ apiVersion: 'v1', kind: 'Pod', namespace: 'ns', labelSelector: { a: '1', b: '2' } });
    const b = informerId({ apiVersion: 'v1', kind: 'Pod', namespace: 'ns', labelSelector: { b: '2', a: '1' } });
    assert.equal(a, b);
    assert.notEqual(a, informerId({ apiVersion: 'v1', kind: 'Pod', namespace: '', labelSelector: { a: '1', b: '2' } }));
  });
});

describe('object cache', () => {
  it('lists by namespace and by labels, and forgets deleted objects in its index', () => {
    const c = new ObjectCache();
    c.set(obj('a', 'n1', { labels: { role: 'master' } }));
    c.set(obj('b', 'n1', { labels: { role: 'replica' } }));
    c.set(obj('c', 'n2', { labels: { role: 'replica' } }));
    assert.deepEqual(
      c
        .list({ namespace: 'n1' })
        .map((o) => o.metadata?.name)
        .sort(),
      ['a', 'b'],
    );
    assert.deepEqual(
      c
        .list({ labels: { role: 'replica' } })
        .map((o) => o.metadata?.name)
        .sort(),
      ['b', 'c'],
    );
    assert.deepEqual(
      c.list({ namespace: 'n1', labels: { role: 'replica' } }).map((o) => o.metadata?.name),
      ['b'],
    );
    assert.equal(c.get('n2', 'c')?.metadata?.name, 'c');
    c.delete('n1/a');
    c.delete('n1/b');
    assert.deepEqual(c.list({ namespace: 'n1' }), []);
    assert.equal(c.size, 1);
  });
});
