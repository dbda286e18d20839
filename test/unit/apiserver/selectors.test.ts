import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector, parseLabelSelector } from '../../../sandbox/apiserver/selectors.ts';

test('label selectors: equality, inequality, set-based, existence', () => {
  const labels = { app: 'mysql', tier: 'db' };
  const yes = (s: string) => parseLabelSelector(s)(labels);
  assert.equal(yes('app=mysql'), true);
  assert.equal(yes('app==mysql,tier=db'), true);
  assert.equal(yes('app!=mysql'), false);
  assert.equal(yes('tier in (db, cache)'), true);
  assert.equal(yes('tier notin (db)'), false);
  assert.equal(yes('app'), true);
  assert.equal(yes('!missing'), true);
  assert.equal(yes('!app'), false);
  assert.equal(parseLabelSelector('missing!=x')(labels), true, 'a missing label is "not equal"');
  assert.equal(parseLabelSelector('')(undefined), true);
});

test('a malformed label selector is a 400', () => {
  assert.throws(
    () => parseLabelSelector('a in b'),
    (e: { code?: number }) => e.code === 400,
  );
});

test('field selectors compare dotted paths, missing fields read as empty', () => {
  const ev = { metadata: { name: 'e1', namespace: 'ns' }, involvedObject: { name: 'c1', kind: 'Pod' } };
  assert.equal(parseFieldSelector('involvedObject.name=c1,metadata.namespace==ns')(ev), true);
  assert.equal(parseFieldSelector('involvedObject.kind!=Pod')(ev), false);
  assert.equal(parseFieldSelector('spec.nodeName=')(ev), true);
});

test('field labels a resource does not support are a 400, as on the real server', () => {
  assert.doesNotThrow(() => parseFieldSelector('status.phase=Running,metadata.name=p', 'pods'));
  assert.throws(
    () => parseFieldSelector('data.k=v', 'configmaps'),
    (e: { code?: number; message?: string }) => e.code === 400 && e.message === 'field label not supported: data.k',
  );
  assert.throws(
    () => parseFieldSelector('spec.replicas=1', ''),
    (e: { code?: number }) => e.code === 400,
  );
  assert.equal(parseFieldSelector('source=op', 'events')({ source: { component: 'op' } }), true);
});
