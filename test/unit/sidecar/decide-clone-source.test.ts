import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideCloneSource, type CloneFacts } from '../../../src/sidecar/decide-clone-source.ts';

function facts(over: Partial<CloneFacts> = {}): CloneFacts {
  return {
    dataExists: false,
    ordinal: 1,
    replicasHealthy: false,
    masterHealthy: false,
    initBucketUri: undefined,
    sources: { replicas: 'http://c-mysql-replicas:8080', master: 'http://c-mysql-master:8080' },
    ...over,
  };
}

test('existing data is kept whatever else is available', () => {
  assert.deepEqual(decideCloneSource(facts({ dataExists: true, replicasHealthy: true, masterHealthy: true })), { action: 'keep' });
});

test('a healthy replica is preferred to the master', () => {
  assert.deepEqual(decideCloneSource(facts({ replicasHealthy: true, masterHealthy: true })), {
    action: 'clone',
    from: 'replicas',
    url: 'http://c-mysql-replicas:8080',
  });
});

test('the master is used when no replica is healthy', () => {
  assert.deepEqual(decideCloneSource(facts({ masterHealthy: true, ordinal: 0, initBucketUri: 's3://b/x.xbackup.gz' })), {
    action: 'clone',
    from: 'master',
    url: 'http://c-mysql-master:8080',
  });
});

test('pod 0 with no peer restores INIT_BUCKET_URI, else starts empty', () => {
  assert.deepEqual(decideCloneSource(facts({ ordinal: 0, initBucketUri: 'file:///b.xbackup.gz' })), {
    action: 'restore',
    url: 'file:///b.xbackup.gz',
  });
  assert.deepEqual(decideCloneSource(facts({ ordinal: 0 })), { action: 'empty' });
});

test('another pod with no peer fails (the kubelet retries) and never uses the bucket', () => {
  const d = decideCloneSource(facts({ ordinal: 2, initBucketUri: 'file:///b.xbackup.gz' }));
  assert.equal(d.action, 'fail');
  assert.match(d.action === 'fail' ? d.reason : '', /c-mysql-replicas.*c-mysql-master/);
});
