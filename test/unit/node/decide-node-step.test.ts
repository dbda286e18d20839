import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideNodeStep, type NodeDecision } from '../../../src/controllers/node/decide-node-step.ts';
import { cluster, fqdn, gathered, master, node, orchestrator, podName, replicating, server, unreachable } from './builders.ts';

function stepKind(d: NodeDecision): string {
  if (d.kind === 'step') return d.step.kind;
  if (d.kind === 'wait') return `wait:${d.reason}`;
  return d.kind;
}

const pod0Master = node(0, master());

function verified<T extends { pod: { verifiedSinceStart: boolean } }>(g: T): T {
  g.pod.verifiedSinceStart = true;
  return g;
}

test('a configured pod the operator verified since its last start needs nothing', () => {
  assert.equal(stepKind(decideNodeStep(verified(gathered(1, server({ configured: true }))))), 'done');
});

test('a pod whose configured flag survived a restart is re-checked, then marked again', () => {
  const g = gathered(1, server({ configured: true, replication: replicating(0) }), [pod0Master]);
  assert.equal(stepKind(decideNodeStep(g)), 'markConfigured');
  assert.equal(stepKind(decideNodeStep({ ...g, attempted: ['markConfigured'] })), 'done');
});

test('a pod whose configured flag survived a restart but follows an old master is re-pointed', () => {
  const g = gathered(2, server({ configured: true, replication: replicating(0) }), [node(0, server({ replication: replicating(1) })), node(1, master())]);
  assert.equal(stepKind(decideNodeStep(g)), 'pointAt');
});

test('a pod whose mysql container is not running waits', () => {
  const g = gathered(1, server());
  g.pod.mysqlRunning = false;
  assert.equal(stepKind(decideNodeStep(g)), 'wait:PodNotRunning');
});

test('an unreachable server waits with the connection error', () => {
  const d = decideNodeStep(gathered(1, unreachable('connect ETIMEDOUT')));
  assert.equal(d.kind, 'wait');
  assert.match(d.kind === 'wait' ? d.message : '', /ETIMEDOUT/);
});

test('access denied for the operator user names the Secret key, not the password', () => {
  const d = decideNodeStep(gathered(1, { reachable: false, problem: 'accessDenied', message: 'denied' }));
  assert.equal(stepKind(d), 'wait:OperatorAccessDenied');
  assert.match(d.kind === 'wait' ? d.message : '', /OPERATOR_PASSWORD of Secret my-db-mysql-operated/);
});

test('nothing is done while a failover is in progress', () => {
  const g = gathered(1, server(), [pod0Master], { cluster: cluster({ failoverInProgress: true, failoverMessage: 'DeadMaster' }) });
  const d = decideNodeStep(g);
  assert.equal(stepKind(d), 'wait:FailoverInProgress');
  assert.match(d.kind === 'wait' ? d.message : '', /DeadMaster/);
});

test('a configured pod is left alone even during a failover', () => {
  const g = verified(gathered(1, server({ configured: true }), [], { cluster: cluster({ failoverInProgress: true }) }));
  assert.equal(stepKind(decideNodeStep(g)), 'done');
});

test('a writable replica is made read-only first', () => {
  assert.equal(stepKind(decideNodeStep(gathered(1, server({ readOnly: false }), [pod0Master]))), 'setReadOnly');
});

test('a cloned replica seeds the GTID set of the backup before replicating', () => {
  const d = decideNodeStep(gathered(1, server({ backupGtidPurged: '0-100-5' }), [pod0Master]));
  assert.deepEqual(d, { kind: 'step', step: { kind: 'seedGtid', gtid: '0-100-5' } });
});

test('a seeded replica is not seeded again', () => {
  const d = decideNodeStep(gathered(1, server({ backupGtidPurged: '0-100-5', gtidSeeded: true }), [pod0Master]));
  assert.equal(stepKind(d), 'pointAt');
});

test('a new replica is pointed at the master', () => {
  const d = decideNodeStep(gathered(1, server(), [pod0Master]));
  assert.equal(d.kind === 'step' && d.step.kind === 'pointAt' ? d.step.master.pod : '', podName(0));
});

test('a replica pointed at the master but stopped is started', () => {
  const g = gathered(1, server({ replication: replicating(0, { ioState: 'stopped', sqlRunning: false }) }), [pod0Master]);
  assert.equal(stepKind(decideNodeStep(g)), 'startReplication');
});

test('a replica that does not run after a start in this pass waits instead of looping', () => {
  const g = gathered(1, server({ replication: replicating(0, { ioState: 'stopped', sqlRunning: false }) }), [pod0Master], {
    attempted: ['pointAt', 'startReplication'],
  });
  assert.equal(stepKind(decideNodeStep(g)), 'wait:ReplicationNotRunning');
});

test('a replica still connecting is polled soon', () => {
  const d = decideNodeStep(gathered(1, server({ replication: replicating(0, { ioState: 'connecting' }) }), [pod0Master]));
  assert.equal(stepKind(d), 'wait:ReplicationConnecting');
  assert.equal(d.kind === 'wait' && d.soon, true);
});

test('a replica running from the master is marked configured', () => {
  const d = decideNodeStep(gathered(1, server({ replication: replicating(0) }), [pod0Master]));
  assert.deepEqual(d, { kind: 'step', step: { kind: 'markConfigured', role: 'replica', master: podName(0) } });
});

test('a restarted replica already replicating from the right master is not re-pointed', () => {
  // skip-slave-start: after a restart the source is kept but the threads are stopped.
  const g = gathered(2, server({ replication: replicating(0, { ioState: 'stopped', sqlRunning: false }), gtidSeeded: true, backupGtidPurged: '0-100-5' }), [
    pod0Master,
    node(1, server({ configured: true, replication: replicating(0) })),
  ]);
  assert.equal(stepKind(decideNodeStep(g)), 'startReplication');
});

test('a replica pointed at an old master is re-pointed at the current one', () => {
  const g = gathered(2, server({ replication: replicating(0) }), [node(0, server({ replication: replicating(1) })), node(1, master())]);
  const d = decideNodeStep(g);
  assert.equal(d.kind === 'step' && d.step.kind === 'pointAt' ? d.step.master.pod : '', podName(1));
});

test('a connection error is retried once per pass by re-pointing, then reported', () => {
  const failing = server({ replication: replicating(0, { ioState: 'connecting', lastIoErrno: 2003, lastIoError: "Can't connect" }) });
  assert.equal(stepKind(decideNodeStep(gathered(1, failing, [pod0Master]))), 'pointAt');
  const d = decideNodeStep(gathered(1, failing, [pod0Master], { attempted: ['pointAt', 'startReplication'] }));
  assert.equal(stepKind(d), 'wait:ReplicationError');
  assert.match(d.kind === 'wait' ? d.message : '', /2003/);
});

test('an error left from before a re-point does not stop the start that clears it', () => {
  const stale = server({ replication: replicating(0, { ioState: 'stopped', sqlRunning: false, lastIoErrno: 1045, lastIoError: 'Access denied' }) });
  assert.equal(stepKind(decideNodeStep(gathered(1, stale, [pod0Master], { attempted: ['pointAt'] }))), 'startReplication');
});

test('a replication access-denied error names the REPLICATION_PASSWORD key', () => {
  const denied = server({ replication: replicating(0, { ioState: 'connecting', lastIoErrno: 1045, lastIoError: 'Access denied' }) });
  const d = decideNodeStep(gathered(1, denied, [pod0Master], { attempted: ['pointAt', 'startReplication'] }));
  assert.equal(stepKind(d), 'wait:ReplicationAccessDenied');
  assert.match(d.kind === 'wait' ? d.message : '', /REPLICATION_PASSWORD of Secret my-db-mysql-operated/);
});

test('an SQL thread error gets one restart per pass, then is reported', () => {
  const broken = server({ replication: replicating(0, { sqlRunning: false, lastSqlErrno: 1062, lastSqlError: 'Duplicate entry' }) });
  assert.equal(stepKind(decideNodeStep(gathered(1, broken, [pod0Master]))), 'startReplication');
  const d = decideNodeStep(gathered(1, broken, [pod0Master], { attempted: ['startReplication'] }));
  assert.equal(stepKind(d), 'wait:ReplicationError');
  assert.match(d.kind === 'wait' ? d.message : '', /1062/);
});

test('when the master is unreachable the replica waits and is not configured', () => {
  const d = decideNodeStep(gathered(1, server(), [node(0, unreachable())]));
  assert.equal(stepKind(d), 'wait:MasterUnreachable');
});

test('the master pod is configured without CHANGE MASTER and its read_only is left alone', () => {
  const d = decideNodeStep(gathered(0, server({ readOnly: true }), [node(1, server({ replication: replicating(0) }))]));
  assert.deepEqual(d, { kind: 'step', step: { kind: 'markConfigured', role: 'master', master: podName(0) } });
});

test('pod 0 of a new cluster is its own master', () => {
  const d = decideNodeStep(gathered(0, server(), [node(1, null), node(2, unreachable())]));
  assert.equal(stepKind(d), 'markConfigured');
});

test('a master restored from a backup seeds its GTID set before being marked configured', () => {
  assert.equal(stepKind(decideNodeStep(gathered(0, server({ backupGtidPurged: '0-1-9' })))), 'seedGtid');
});

test('a pod that Orchestrator calls master but which replicates is not touched', () => {
  const g = gathered(1, server({ replication: replicating(0) }), [node(0, server())], {
    cluster: cluster({ orchestrator: orchestrator(fqdn(1)) }),
  });
  assert.equal(stepKind(decideNodeStep(g)), 'wait:MasterViewStale');
});
