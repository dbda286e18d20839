import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64ErrorAt, dataKeyCauses, metadataCauses, nameCauses } from '../../../sandbox/apiserver/meta-validation.ts';
import { UPDATE_RULES } from '../../../sandbox/apiserver/update-rules.ts';

test('names: services are DNS-1035 labels, namespaces DNS-1123 labels, the rest subdomains', () => {
  assert.deepEqual(nameCauses('services', 'c1-mysql'), []);
  assert.equal(nameCauses('services', '1-mysql').length, 1);
  assert.equal(nameCauses('namespaces', 'a.b').length, 1);
  assert.deepEqual(nameCauses('configmaps', 'a.b-c'), []);
  assert.equal(nameCauses('configmaps', 'A').length, 1);
  assert.equal(nameCauses('services', `a${'b'.repeat(63)}`)[0]!.message.endsWith('must be no more than 63 characters'), true);
});

test('labels and annotations: key parts, 63-character values, 256 KiB of annotations', () => {
  assert.deepEqual(metadataCauses({ labels: { 'mysql.presslabs.org/cluster': 'c1', x: '' } }), []);
  assert.equal(metadataCauses({ labels: { 'a/b/c': 'x' } }).length, 1);
  assert.equal(metadataCauses({ labels: { app: 'x'.repeat(64) } }).length, 1);
  assert.equal(metadataCauses({ labels: { app: '-x' } }).length, 1);
  const big = metadataCauses({ annotations: { a: 'x'.repeat(256 * 1024) } });
  assert.deepEqual(
    big.map((c) => c.reason),
    ['FieldValueTooLong'],
  );
});

test('config keys and base64 as Go decodes it', () => {
  assert.deepEqual(dataKeyCauses({ data: { 'my.cnf': '', KEY_1: '' } }), []);
  assert.equal(dataKeyCauses({ data: { 'a/b': '' } })[0]!.field, 'data[a/b]');
  assert.equal(base64ErrorAt('cm9vdA=='), -1);
  assert.equal(base64ErrorAt('not base64!'), 3);
  assert.equal(base64ErrorAt('abc'), 0);
  assert.equal(base64ErrorAt('ab=c'), 2);
});

test('update rules: StatefulSet spec beyond the mutable fields, pod spec beyond images, immutable ConfigMaps', () => {
  const sts = { spec: { replicas: 1, serviceName: 'a', template: { x: 1 } } };
  assert.deepEqual(UPDATE_RULES.statefulsets!(sts, { spec: { ...sts.spec, replicas: 3, template: { x: 2 } } }), []);
  assert.equal(UPDATE_RULES.statefulsets!(sts, { spec: { ...sts.spec, serviceName: 'b' } })[0]!.reason, 'FieldValueForbidden');
  const pod = { spec: { containers: [{ name: 'c', image: 'a' }], nodeName: '' } };
  assert.deepEqual(UPDATE_RULES.pods!(pod, { spec: { containers: [{ name: 'c', image: 'b' }], nodeName: '' } }), []);
  assert.equal(UPDATE_RULES.pods!(pod, { spec: { ...pod.spec, nodeName: 'n' } }).length, 1);
  assert.equal(UPDATE_RULES.configmaps!({ immutable: true, data: { a: '1' } }, { immutable: true, data: { a: '2' } }).length, 1);
  assert.deepEqual(UPDATE_RULES.configmaps!({ data: { a: '1' } }, { data: { a: '2' } }), []);
});
