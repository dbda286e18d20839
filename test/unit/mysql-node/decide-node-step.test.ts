import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideNodeStep, needsCheck, type NodeDecision } from '../../../src/controllers/mysql-node/decide-node-step.ts';
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

// Issue 21, item 4: a takeover moved pod 1 below pod 2 (the designated replica) and it stopped on IO
// error 1236, one transaction ahead of it; status still names pod 0, the old master.
const ahead = replicating(2, {
  ioState: 'stopped',
  lastIoErrno: 1236,
  lastIoError:
    "Got fatal error 1236 from master when reading data from binary log: 'Error: connecting slave requested to start from GTID 0-104-74, which is not in the master's binlog'",
});

test('a configured, verified replica stopped on an IO error is started again on its own source, never re-pointed at the master status names', () => {
  const g = verified(
    gathered(1, server({ configured: true, replication: ahead }), [
      pod0Master,
      node(2, server({ configured: true, replication: replicating(0) })),
    ]),
  );
  assert.equal(stepKind(decideNodeStep(g)), 'startReplication');
  const d = decideNodeStep({ ...g, attempted: ['startReplication'] });
  assert.equal(stepKind(d), 'wait:ReplicationError');
  assert.match(d.kind === 'wait' ? d.message : '', /from 127\.0\.0\.13:3306 stopped on IO error 1236: .*started again on the same source/);
});

test('a configured, verified replica stopped on an SQL error is started again, then reported', () => {
  const broken = replicating(0, { sqlRunning: false, lastSqlErrno: 1062, lastSqlError: 'Duplicate entry' });
  const g = verified(gathered(1, server({ configured: true, replication: broken }), [pod0Master]));
  assert.equal(stepKind(decideNodeStep(g)), 'startReplication');
  assert.equal(stepKind(decideNodeStep({ ...g, attempted: ['startReplication'] })), 'wait:ReplicationError');
});

test("a replica stopped after its source went away (a connection error) is left alone while the source is down: Orchestrator's regrouping stopped it", () => {
  // What a dead master's replica shows after 3.2.6's STOP SLAVE, before the promotion resets it.
  const lost = replicating(0, { ioState: 'stopped', lastIoErrno: 2013, lastIoError: 'Lost connection to server during query' });
  const self = server({ configured: true, replication: lost });
  const g = verified(gathered(1, self, [node(0, unreachable())]));
  assert.equal(stepKind(decideNodeStep(g)), 'done');
  // The other servers are read for it: whether its source answers again decides.
  assert.equal(needsCheck(g.pod, self, g.cluster), true);
  // The source back (a recovery that failed, the old master restarted in place): nothing else
  // would start the replica, so it is started on the same source.
  const back = verified(gathered(1, self, [pod0Master]));
  assert.equal(stepKind(decideNodeStep(back)), 'startReplication');
  // Back but still read-only (restarted, mid-recovery): not yet.
  const restarting = verified(gathered(1, self, [node(0, server({ configured: true, readOnly: true }))]));
  assert.equal(stepKind(decideNodeStep(restarting)), 'done');
});

test('nothing is started while a failover or a takeover is signalled (FailoverInProgress)', () => {
  const g = verified(
    gathered(1, server({ configured: true, replication: ahead }), [pod0Master], {
      cluster: cluster({ failoverInProgress: true, failoverMessage: "Orchestrator's PreGracefulTakeover hook announced a takeover" }),
    }),
  );
  assert.equal(stepKind(decideNodeStep(g)), 'wait:FailoverInProgress');
});

test('a configured, verified replica stopped without an error (STOP SLAVE, a demoted master a plain takeover left) is left alone', () => {
  const stopped = replicating(0, { ioState: 'stopped', sqlRunning: false });
  assert.equal(stepKind(decideNodeStep(verified(gathered(1, server({ configured: true, replication: stopped }), [pod0Master])))), 'done');
});

test('a pod whose configured flag survived a restart is re-checked, then marked again', () => {
  const g = gathered(1, server({ configured: true, replication: replicating(0) }), [pod0Master]);
  assert.equal(stepKind(decideNodeStep(g)), 'markConfigured');
  assert.equal(stepKind(decideNodeStep({ ...g, attempted: ['markConfigured'] })), 'done');
});

test('a pod whose configured flag survived a restart but follows an old master is re-pointed', () => {
  const g = gathered(2, server({ configured: true, replication: replicating(0) }), [
    node(0, server({ replication: replicating(1) })),
    node(1, master()),
  ]);
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

test('an unreachable server whose startup probe has not passed is starting, looked at again shortly, not backed off', () => {
  const g = gathered(1, unreachable('connect ECONNREFUSED'));
  g.pod.mysqlStarted = false;
  const starting = decideNodeStep(g);
  assert.equal(stepKind(starting), 'wait:ServerStarting');
  assert.equal(starting.kind === 'wait' && starting.recheckMs, 500);
  const unreachableOnceStarted = decideNodeStep(gathered(1, unreachable('connect ECONNREFUSED')));
  assert.equal(stepKind(unreachableOnceStarted), 'wait:ServerUnreachable');
  assert.equal(unreachableOnceStarted.kind === 'wait' && unreachableOnceStarted.recheckMs, undefined);
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

// A cloned replica whose mysql container alone restarted: the init-file the init container wrote
// at the clone runs again, so `backup_gtid_purged` is back and `set_gtid_purged` gone, while the
// server's position is far past the clone's. Seeding again replayed everything since the clone.
test("a cloned replica whose mysqld restarted is not seeded again: its position holds the backup's", () => {
  const restarted = server({
    backupGtidPurged: '0-100-3',
    gtidExecuted: '0-100-261',
    replication: replicating(0, { ioState: 'stopped', sqlRunning: false }),
  });
  assert.equal(stepKind(decideNodeStep(gathered(1, restarted, [pod0Master]))), 'startReplication');
  const mysql = server({
    family: 'mysql',
    backupGtidPurged: 'aaaa:1-3',
    gtidExecuted: 'aaaa:1-261',
    replication: replicating(0, { ioState: 'stopped', sqlRunning: false }),
  });
  assert.equal(stepKind(decideNodeStep(gathered(1, mysql, [pod0Master]))), 'startReplication');
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
  const g = gathered(
    2,
    server({ replication: replicating(0, { ioState: 'stopped', sqlRunning: false }), gtidSeeded: true, backupGtidPurged: '0-100-5' }),
    [pod0Master, node(1, server({ configured: true, replication: replicating(0) }))],
  );
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
  const stale = server({
    replication: replicating(0, { ioState: 'stopped', sqlRunning: false, lastIoErrno: 1045, lastIoError: 'Access denied' }),
  });
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

test('the master pod is configured without CHANGE MASTER once writable; its read_only is left alone', () => {
  const d = decideNodeStep(gathered(0, server({ readOnly: false }), [node(1, server({ replication: replicating(0) }))]));
  assert.deepEqual(d, { kind: 'step', step: { kind: 'markConfigured', role: 'master', master: podName(0) } });
});

// Issue 21: `configured` 0 on a read-only master is what tells the orchestrator controller that the
// init-file froze it (bootstrap, it may be made writable), not a takeover (never undone).
test('a master read-only since its start waits, unconfigured, for the orchestrator controller to make it writable', () => {
  const d = decideNodeStep(gathered(0, server({ readOnly: true }), [node(1, server({ replication: replicating(0) }))]));
  assert.equal(stepKind(d), 'wait:MasterReadOnly');
  assert.equal(d.kind === 'wait' && d.recheckMs !== undefined, true);
});

test('under spec.readOnly the read-only master is configured', () => {
  const d = decideNodeStep(
    gathered(0, server({ readOnly: true }), [node(1, server({ replication: replicating(0) }))], { cluster: cluster({ readOnly: true }) }),
  );
  assert.equal(stepKind(d), 'markConfigured');
});

test('pod 0 of a new cluster is its own master', () => {
  const d = decideNodeStep(gathered(0, server({ readOnly: false }), [node(1, null), node(2, unreachable())]));
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

// The old master after a failover (issue 12): pod 0 wrote 0-100-1..10 as master, pod 1 received
// them all, was promoted and wrote 0-101-11..12. MariaDB's binlog state keeps the last GTID per
// domain and server_id.
const promoted = node(1, master({ gtidExecuted: '0-101-12', gtidHistory: '0-100-10,0-101-12' }));
const orcNamesPod1 = cluster({ orchestrator: orchestrator(fqdn(1)) });

test('an old master that comes back read-only is pointed at the new master from its own GTID position (current_pos)', () => {
  const old = server({ gtidExecuted: '0-100-10', gtidHistory: '0-100-10' });
  const d = decideNodeStep(gathered(0, old, [promoted], { cluster: orcNamesPod1 }));
  assert.equal(
    d.kind === 'step' && d.step.kind === 'pointAt' ? `${d.step.master.pod} own=${d.step.fromOwnPosition}` : stepKind(d),
    `${podName(1)} own=true`,
  );
});

test('an old master that holds a transaction the new master lacks is not made a replica, and the GTID is named', () => {
  const old = server({ gtidExecuted: '0-100-11', gtidHistory: '0-100-11' });
  const d = decideNodeStep(gathered(0, old, [promoted], { cluster: orcNamesPod1 }));
  assert.equal(stepKind(d), 'wait:ErrantTransactions');
  assert.match(d.kind === 'wait' ? d.message : '', /my-db-mysql-0 holds transactions the master my-db-mysql-1 lacks: 0-100-11;/);
});

test('the errant check does not rely on sequence numbers alone: the new master wrote more than the old one', () => {
  // gtidCovers('0-101-12', '0-100-11') holds per domain, yet 0-100-11 is in no binlog of pod 1.
  const old = server({ gtidExecuted: '0-100-11', gtidHistory: '0-100-11' });
  assert.equal(stepKind(decideNodeStep(gathered(0, old, [promoted], { cluster: orcNamesPod1 }))), 'wait:ErrantTransactions');
});

test('an old master still writable after its restart is made read-only before anything else', () => {
  const old = server({ readOnly: false, gtidExecuted: '0-100-11', gtidHistory: '0-100-11' });
  assert.equal(stepKind(decideNodeStep(gathered(0, old, [promoted], { cluster: orcNamesPod1 }))), 'setReadOnly');
});

test('a replica re-pointed to a new master keeps its replica position (slave_pos); a MySQL server always auto-positions', () => {
  const replica = server({
    configured: true,
    gtidExecuted: '0-100-10',
    gtidHistory: '0-100-10',
    replication: replicating(0, { gtidApplied: '0-100-10' }),
  });
  const d = decideNodeStep(gathered(2, replica, [promoted, node(0, unreachable())], { cluster: orcNamesPod1 }));
  assert.equal(d.kind === 'step' && d.step.kind === 'pointAt' ? d.step.fromOwnPosition : null, false);
  const mysqlOld = server({ family: 'mysql', gtidExecuted: 'aaaa:1-10', gtidHistory: 'aaaa:1-10' });
  const mysqlNew = node(1, master({ family: 'mysql', gtidHistory: 'aaaa:1-10,bbbb:1-2' }));
  const m = decideNodeStep(gathered(0, mysqlOld, [mysqlNew], { cluster: orcNamesPod1 }));
  assert.equal(m.kind === 'step' && m.step.kind === 'pointAt' ? m.step.fromOwnPosition : null, false);
  const errantMysql = server({ family: 'mysql', gtidHistory: 'aaaa:1-11' });
  const e = decideNodeStep(gathered(0, errantMysql, [mysqlNew], { cluster: orcNamesPod1 }));
  assert.match(e.kind === 'wait' ? e.message : '', /lacks: aaaa:11;/);
});

test('a replica that already replicates from the master (resumed at start) is not marked configured while it holds a transaction the master lacks', () => {
  // Pod 2 (server 102) resumed replication from pod 1 by its init-file, then was written to itself.
  const resumed = server({
    configured: true,
    gtidExecuted: '0-102-13',
    gtidHistory: '0-100-10,0-101-12,0-102-13',
    replication: replicating(1),
  });
  const d = decideNodeStep(gathered(2, resumed, [promoted, node(0, unreachable())], { cluster: orcNamesPod1 }));
  assert.equal(stepKind(d), 'wait:ErrantTransactions');
  assert.match(d.kind === 'wait' ? d.message : '', /lacks: 0-102-13;/);
  // Its threads stopped on the error the fork causes (1236 with current_pos): not started again.
  const stopped = server({
    ...resumed,
    replication: replicating(1, { ioState: 'stopped', lastIoErrno: 1236, lastIoError: "not in the master's binlog" }),
  });
  assert.equal(
    stepKind(decideNodeStep(gathered(2, stopped, [promoted, node(0, unreachable())], { cluster: orcNamesPod1 }))),
    'wait:ErrantTransactions',
  );
  const clean = server({ configured: true, gtidExecuted: '0-101-12', gtidHistory: '0-100-10,0-101-12', replication: replicating(1) });
  assert.equal(
    stepKind(decideNodeStep(gathered(2, clean, [promoted, node(0, unreachable())], { cluster: orcNamesPod1 }))),
    'markConfigured',
  );
});

test('a master cloned at a position holds the transactions before it that its binlog does not name', () => {
  // Pod 1 was cloned at 0-100-10 (its binlog starts empty), promoted, and wrote 0-101-11..12.
  const clonedMaster = node(
    1,
    master({ gtidExecuted: '0-101-12', gtidHistory: '0-101-12', backupGtidPurged: '0-100-10', gtidSeeded: true }),
  );
  const old = server({ gtidExecuted: '0-100-10', gtidHistory: '0-100-10' });
  assert.equal(stepKind(decideNodeStep(gathered(0, old, [clonedMaster], { cluster: orcNamesPod1 }))), 'pointAt');
  const errantOld = server({ gtidExecuted: '0-100-11', gtidHistory: '0-100-11' });
  assert.equal(stepKind(decideNodeStep(gathered(0, errantOld, [clonedMaster], { cluster: orcNamesPod1 }))), 'wait:ErrantTransactions');
});

test('an old master configured before Orchestrator failed it over (restarted in place first) is rejoined, not left alone', () => {
  // Pod 0 was configured as the master when its mysqld came back; Orchestrator then promoted pod 1.
  const c = cluster({ orchestrator: orchestrator(fqdn(1)) });
  const g = verified(
    gathered(0, server({ configured: true, readOnly: true }), [node(1, master()), node(2, server({ replication: replicating(1) }))], {
      cluster: c,
    }),
  );
  const d = decideNodeStep(g);
  assert.equal(stepKind(d), 'pointAt');
  assert.equal(d.kind === 'step' && d.step.kind === 'pointAt' ? d.step.master.pod : '', podName(1));
  // Still the master in Orchestrator's view: nothing to do.
  assert.equal(stepKind(decideNodeStep({ ...g, cluster: cluster({ orchestrator: orchestrator(fqdn(0)) }) })), 'done');
});

test('an old master holding transactions the new master lacks is not rejoined', () => {
  const c = cluster({ orchestrator: orchestrator(fqdn(1)) });
  const self = server({ configured: true, readOnly: true, gtidExecuted: '0-100-12', gtidHistory: '0-100-12' });
  const g = verified(
    gathered(0, self, [node(1, master({ gtidExecuted: '0-100-10,0-101-3', gtidHistory: '0-100-10,0-101-3' }))], { cluster: c }),
  );
  assert.equal(stepKind(decideNodeStep(g)), 'wait:ErrantTransactions');
});

test('an old master waits while its successor is not yet a writable master (Orchestrator mid-takeover)', () => {
  const c = cluster({ orchestrator: orchestrator(fqdn(1)) });
  const g = verified(gathered(0, server({ configured: true, readOnly: false }), [node(1, server({ readOnly: true }))], { cluster: c }));
  assert.equal(stepKind(decideNodeStep(g)), 'wait:MasterViewStale');
});

// The chaos suite's partition (docs/failure-modes.md): pod 0 was partitioned, pod 1 promoted and
// labelled role=master; the partition healed with pod 0 still writable (nobody could fence it)
// while status.nodes still named pod 0. Pod 1 looked like a demoted master with a proven successor.
test('a pod labelled role=master is never made read-only while the status still names another master', () => {
  const successor = { ...master({ gtidExecuted: '0-101-12', gtidHistory: '0-100-10,0-101-12' }), configured: true };
  const staleOld = node(0, { ...master({ gtidExecuted: '0-100-11', gtidHistory: '0-100-11' }), configured: true });
  const g = gathered(1, successor, [staleOld], { cluster: cluster({ orchestrator: orchestrator(fqdn(0)) }) });
  assert.equal(stepKind(decideNodeStep(g)), 'setReadOnly', 'without the label: the stale view would fence it');
  const labelled = { ...g, pod: { ...g.pod, labelledMaster: true } };
  const d = decideNodeStep(labelled);
  assert.equal(stepKind(d), 'wait:MasterViewStale');
  assert.match(d.kind === 'wait' ? d.message : '', /my-db-mysql-1 carries role=master while the cluster's status names my-db-mysql-0/);
});
