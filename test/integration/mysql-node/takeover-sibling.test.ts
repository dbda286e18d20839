// Issue 21, item 4, on three MariaDB 10.11 servers standing in for the pods and the Orchestrator
// stand-in: a graceful takeover moves the master's other replicas below the designated one while
// the master still takes writes (as 3.2.6 does). A sibling that applied a transaction the designated
// replica has not yet asks it for a GTID its binlog lacks: MariaDB stops the IO thread with the
// fatal error 1236 and does not retry. The node controller (a child process) starts it again on the
// source Orchestrator gave it, though status.nodes still names the old master (the orchestrator
// controller, which would move it, does not run here): never re-pointed behind Orchestrator's back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchWithStandIn } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, nodeCluster, podName, waitSameData } from './node-cluster.ts';

test('a sibling a takeover left on IO error 1236 is started again on the designated replica, never moved back to the master status names', async (t) => {
  const c = await nodeCluster(t, 3);
  const [s0, s1, s2] = [c.servers[0]!, c.servers[1]!, c.servers[2]!];
  const op = await c.bootstrap({ masterInStatus: 0 });
  for (const i of [0, 1, 2]) await c.waitCondition(i, 'True');
  await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  await waitSameData(s0, s1, 'app.t');
  await waitSameData(s0, s2, 'app.t');
  const alias = `${CLUSTER}.${c.ns}`;
  const lab = await watchWithStandIn(t, c.servers, alias);
  const sibling = await c.root(2);

  // The designated replica (pod 1) one transaction behind its sibling, as a busy master leaves them.
  await s1.sql('STOP SLAVE SQL_THREAD');
  await s0.sql('INSERT INTO app.t VALUES (2)');
  await waitSameData(s0, s2, 'app.t');
  const logMark = op.output().length;
  const takeover = lab.get(`/api/graceful-master-takeover-auto/${alias}/${s1.host}/${s1.port}`);
  const stuck = await eventually(
    'the sibling moved below the designated replica to fail with 1236',
    async () => {
      const rs = await sibling.replicationStatus();
      return rs?.masterHost === s1.host && rs.ioState === 'stopped' && rs.lastIoErrno === 1236 ? rs : undefined;
    },
    30_000,
  );
  assert.match(stuck.lastIoError, /not in the master's binlog/);
  await s1.sql('START SLAVE SQL_THREAD');
  const res = await takeover;
  assert.equal(res.status, 200, JSON.stringify(res.body));

  // status.nodes still names pod 0: the sibling is started where Orchestrator put it.
  await eventually(
    'the sibling to replicate from the designated replica, now the master',
    async () => {
      const rs = await sibling.replicationStatus();
      return rs?.masterHost === s1.host && rs.ioRunning && rs.sqlRunning;
    },
    60_000,
  );
  await s1.sql('INSERT INTO app.t VALUES (3)');
  await waitSameData(s1, s2, 'app.t');
  assert.equal((await sibling.replicationStatus())?.masterHost, s1.host);
  const after = op.output().slice(logMark);
  assert.match(after, new RegExp(`"pod":"${podName(2)}".*"step":"startReplication"`));
  assert.doesNotMatch(after, new RegExp(`"pod":"${podName(2)}".*"step":"pointAt"`), 'never re-pointed');
});
