// A graceful takeover moves the master's other replicas below the designated one while the master
// still takes writes (as Orchestrator 3.2.6 does, and the stand-in after it). A sibling that
// applied a transaction the designated replica has not yet asks it for a GTID its binlog does not
// hold: MariaDB stops the IO thread with the fatal error 1236 and does not retry, so the sibling
// stays stopped after the designated replica caught up and was promoted. The node controller (a
// child process) starts it again. Three MariaDB 10.11 servers stand in for the pods; the test
// writes the new master into status.nodes as the orchestrator controller does (not running here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchWithStandIn } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, replicatingCluster, waitSameData } from './node-cluster.ts';

test('a sibling a graceful takeover left on IO error 1236 (it was ahead of the designated replica) is started again and replicates from the new master', async (t) => {
  const { c } = await replicatingCluster(t, '(1)');
  const [s0, s1, s2] = [c.servers[0]!, c.servers[1]!, c.servers[2]!];
  const alias = `${CLUSTER}.${c.ns}`;
  const lab = await watchWithStandIn(t, c.servers, alias);
  const sibling = await c.root(2);

  // The designated replica one transaction behind its sibling, as a busy master leaves them.
  await s1.sql('STOP SLAVE SQL_THREAD');
  await s0.sql('INSERT INTO app.t VALUES (2)');
  await waitSameData(s0, s2, 'app.t');
  const takeover = lab.get(`/api/graceful-master-takeover-auto/${alias}/${s1.host}/${s1.port}`);
  const stuck = await eventually('the sibling moved below the designated replica to fail with 1236', async () => {
    const rs = await sibling.replicationStatus();
    return rs?.masterHost === s1.host && rs.ioState === 'stopped' && rs.lastIoErrno === 1236 ? rs : undefined;
  }, 30_000);
  assert.match(stuck.lastIoError, /not in the master's binlog/);
  // The designated replica catches up; the takeover promotes it.
  await s1.sql('START SLAVE SQL_THREAD');
  const res = await takeover;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await c.setMasterInStatus(1);

  await eventually('the sibling to replicate from the new master again', async () => {
    const rs = await sibling.replicationStatus();
    return rs?.masterHost === s1.host && rs.ioRunning && rs.sqlRunning;
  }, 60_000);
  await s1.sql('INSERT INTO app.t VALUES (3)');
  await waitSameData(s1, s2, 'app.t');
  await c.waitCondition(2, 'True');
});
