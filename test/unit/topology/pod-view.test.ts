import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodePods, podView, resolveByFqdn, type PodObject } from '../../../src/topology/index.ts';

function pod(over: { phase?: string; deleting?: boolean; started?: boolean } = {}): PodObject {
  return {
    metadata: { name: 'my-db-mysql-2', namespace: 'prod', ...(over.deleting ? { deletionTimestamp: '2026-01-01T10:00:00Z' } : {}) },
    status: {
      phase: over.phase ?? 'Running',
      containerStatuses: [
        {
          name: 'mysql',
          state: { running: { startedAt: '2026-01-01T10:00:00Z' } },
          ...(over.started === undefined ? {} : { started: over.started }),
        },
      ],
    },
  };
}

test('a pod is addressed by its FQDN on port 3306 by default', () => {
  const v = podView(pod(), resolveByFqdn);
  assert.equal(v.ordinal, 2);
  assert.equal(v.fqdn, 'my-db-mysql-2.mysql.prod');
  assert.deepEqual(v.endpoint, { host: 'my-db-mysql-2.mysql.prod', port: 3306 });
  assert.equal(v.mysqlRunning, true);
  assert.equal(v.deleting, false);
});

test('a pod that is not Running does not count as running', () => {
  assert.equal(podView(pod({ phase: 'Pending' }), resolveByFqdn).mysqlRunning, false);
});

test('the mysql container counts as started once the kubelet says so, or when the kubelet does not report it', () => {
  assert.equal(podView(pod({ started: false }), resolveByFqdn).mysqlStarted, false);
  assert.equal(podView(pod({ started: true }), resolveByFqdn).mysqlStarted, true);
  assert.equal(podView(pod(), resolveByFqdn).mysqlStarted, true);
});

test('a pod being deleted says so', () => {
  assert.equal(podView(pod({ deleting: true }), resolveByFqdn).deleting, true);
});

test('only pods named <statefulset>-<ordinal> are nodes of the cluster', () => {
  const stray: PodObject = { metadata: { name: 'my-db-mysql-backup', namespace: 'prod' } };
  assert.deepEqual(
    nodePods([stray, pod()], resolveByFqdn).map((p) => p.name),
    ['my-db-mysql-2'],
  );
});
