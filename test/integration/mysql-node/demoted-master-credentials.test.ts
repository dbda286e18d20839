// Issue 23 item 3 (docs/credentials.md): no replication password is stored where Orchestrator
// reads, so a graceful takeover leaves the demoted master with no replication user, as the real
// 3.2.6 does with the chart's configuration (no ReplicationCredentialsQuery; MariaDB has no
// mysql.slave_master_info): recorded in test/fixtures/orchestrator/no-replication-credentials/.
// The node controller (a child process) gives it the operated Secret's credentials on the source
// Orchestrator chose, and it replicates. Two MariaDB 10.11 servers stand in for the pods, and
// each starts with the rows an earlier version of this project stored in sys_operator.status,
// which the node controller removes from the running servers (no restart).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { watchWithStandIn } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, nodeCluster, waitSameData } from './node-cluster.ts';

const OLD_ROWS =
  "SET sql_log_bin = 0; REPLACE INTO sys_operator.status VALUES ('replication_user', 'sys_replication'), " +
  `('replication_password', '${TEST_SYSTEM_USERS.replication.password}'); SET sql_log_bin = 1`;

test('after an -auto takeover that gave the demoted master no replication user, the node controller gives it the Secret credentials and it replicates from the new master; the stored rows of an earlier version go without a restart', async (t) => {
  const c = await nodeCluster(t, 2);
  const [s0, s1] = [c.servers[0]!, c.servers[1]!];
  // As an earlier version's init-file left every server.
  for (const s of c.servers) await s.sql(OLD_ROWS);
  const op = await c.bootstrap({ masterInStatus: 0 });
  for (const i of [0, 1]) await c.waitCondition(i, 'True');
  const roots = [await c.root(0), await c.root(1)];
  await eventually('the stored rows removed from both running servers', async () => {
    for (const n of roots) if (await n.hasStoredReplicationCredentials()) return false;
    return true;
  });
  await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  await waitSameData(s0, s1, 'app.t');

  // The chart's configuration: no ReplicationCredentialsQuery.
  const alias = `${CLUSTER}.${c.ns}`;
  const lab = await watchWithStandIn(t, c.servers, alias, { config: { ReplicationCredentialsQuery: '' } });
  // The operator down during the takeover, so what Orchestrator leaves is seen as it is.
  await op.stop();
  const takeover = await lab.get(`/api/graceful-master-takeover-auto/${alias}/${s1.host}/${s1.port}`);
  // As 3.2.6 answered: the successor promoted, the demoted master not replicating.
  assert.equal(takeover.status, 500, JSON.stringify(takeover.body));
  assert.equal(takeover.body.Message, 'Replication not running');
  assert.equal(takeover.body.Details?.IsSuccessful, true);
  assert.equal(takeover.body.Details?.SuccessorKey?.Hostname, s1.host);
  const old = roots[0]!;
  const stuck = await old.replicationStatus();
  assert.deepEqual(
    [stuck?.masterHost, stuck?.masterUser, stuck?.ioState, stuck?.lastIoErrno],
    [s1.host, '', 'stopped', 1593],
    'pointed at the new master with no user, its IO thread stopped',
  );
  // The orchestrator controller's part (not running here): status names the new master.
  await c.setMasterInStatus(1);
  const again = c.startOperator();
  t.after(() => again.stop());

  await eventually(
    'the demoted master to replicate from the new master with the replication user',
    async () => {
      const rs = await old.replicationStatus();
      return rs?.masterHost === s1.host && rs.masterUser === TEST_SYSTEM_USERS.replication.user && rs.ioRunning && rs.sqlRunning;
    },
    60_000,
  );
  await s1.sql('INSERT INTO app.t VALUES (2)');
  await waitSameData(s1, s0, 'app.t');
  assert.match(again.output(), /"step":"giveReplicationCredentials"/);
  const given = (
    await c.client.list<KubeObject & { reason?: string; message?: string }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: c.ns })
  ).items.filter((e) => e.reason === 'ReplicationCredentialsGiven');
  assert.ok(given.some((e) => /my-db-mysql-0: it replicates from .* with no user; gave it .* and started it/.test(e.message ?? '')));
  for (const e of given) assert.ok(!(e.message ?? '').includes(TEST_SYSTEM_USERS.replication.password), 'no password in Events');
});
