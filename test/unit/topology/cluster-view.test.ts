import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { clusterView } from '../../../src/topology/index.ts';

function cluster(status: MysqlCluster['status']): MysqlCluster {
  return { metadata: { name: 'my-db', namespace: 'prod' }, spec: { secretName: 's' }, status } as MysqlCluster;
}

test("Orchestrator's masters are the status.nodes with Master=True", () => {
  const v = clusterView(
    cluster({
      nodes: [
        { name: 'my-db-mysql-0.mysql.prod', conditions: [{ type: 'Master', status: 'False', lastTransitionTime: 't' }] },
        { name: 'my-db-mysql-1.mysql.prod', conditions: [{ type: 'Master', status: 'True', lastTransitionTime: 't' }] },
        { name: 'my-db-mysql-2.mysql.prod' },
      ],
    }),
  );
  assert.deepEqual(v.orchestrator, { masters: ['my-db-mysql-1.mysql.prod'] });
  assert.equal(v.failoverInProgress, false);
});

test('FailoverInProgress=True is seen with its message', () => {
  const v = clusterView(
    cluster({
      conditions: [
        { type: 'FailoverInProgress', status: 'True', reason: 'OrcFailoverInProgress', message: 'DeadMaster', lastTransitionTime: 't' },
      ],
    }),
  );
  assert.equal(v.failoverInProgress, true);
  assert.equal(v.failoverMessage, 'DeadMaster');
});

test('a cluster without status has no failover and no Orchestrator view', () => {
  assert.deepEqual(clusterView(cluster(undefined)), {
    name: 'my-db',
    namespace: 'prod',
    failoverInProgress: false,
    failoverMessage: '',
    orchestrator: undefined,
    readOnly: false,
  });
  assert.equal(clusterView(cluster({ nodes: [] })).orchestrator, undefined);
});

test('status.nodes without a Master=True entry are a view with no master', () => {
  const v = clusterView(
    cluster({ nodes: [{ name: 'my-db-mysql-0.mysql.prod', conditions: [{ type: 'Master', status: 'False', lastTransitionTime: 't' }] }] }),
  );
  assert.deepEqual(v.orchestrator, { masters: [] });
});
