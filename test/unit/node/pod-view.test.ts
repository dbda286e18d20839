import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POD_CONDITION_NODE_INITIALIZED } from '../../../src/api/constants.ts';
import { podView, resolveByFqdn, type PodObject } from '../../../src/controllers/node/pod-view.ts';

function pod(over: { startedAt?: string; probe?: string; phase?: string } = {}): PodObject {
  return {
    metadata: { name: 'my-db-mysql-2', namespace: 'prod' },
    status: {
      phase: over.phase ?? 'Running',
      containerStatuses: [{ name: 'mysql', state: { running: { startedAt: over.startedAt ?? '2026-01-01T10:00:00Z' } } }],
      conditions: over.probe
        ? [{ type: POD_CONDITION_NODE_INITIALIZED, status: 'True', lastProbeTime: over.probe }]
        : [],
    },
  };
}

test('a pod is addressed by its FQDN on port 3306 by default', () => {
  const v = podView(pod(), resolveByFqdn);
  assert.equal(v.ordinal, 2);
  assert.deepEqual(v.endpoint, { host: 'my-db-mysql-2.mysql.prod', port: 3306 });
  assert.equal(v.mysqlRunning, true);
});

test('a pod that is not Running does not count as running', () => {
  assert.equal(podView(pod({ phase: 'Pending' }), resolveByFqdn).mysqlRunning, false);
});

test('a check stamped after the mysql container started counts as verified', () => {
  assert.equal(podView(pod({ probe: '2026-01-01T10:00:05Z' }), resolveByFqdn).verifiedSinceStart, true);
});

test('a check in the same second as the start does not count (it may have come first)', () => {
  assert.equal(podView(pod({ probe: '2026-01-01T10:00:00Z' }), resolveByFqdn).verifiedSinceStart, false);
});

test('a restart of mysqld after the last check asks for a new check', () => {
  assert.equal(podView(pod({ probe: '2026-01-01T09:00:00Z' }), resolveByFqdn).verifiedSinceStart, false);
  assert.equal(podView(pod(), resolveByFqdn).verifiedSinceStart, false);
});
