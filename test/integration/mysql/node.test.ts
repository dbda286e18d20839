// src/mysql against real servers. Flavour that runs live here: MariaDB 10.11 (the MySQL
// statements are unit-tested in test/unit/mysql).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  connectNode,
  flavourFromVersionSpec,
  isMysqlError,
  type MysqlError,
  renderInitFile,
  replicationError,
  STATUS,
} from '../../../src/mysql/index.ts';
import { startMariaDB, startReplicationPair, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const U = TEST_SYSTEM_USERS;

async function rejectsWith(p: Promise<unknown>, kind: MysqlError['kind']): Promise<MysqlError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isMysqlError(e), `expected a MysqlError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    return e;
  }
  assert.fail(`expected a ${kind} error`);
}

test('MariaDB 10.11 live: connectNode detects the flavour and reports the server identity', async (t) => {
  const s = await startMariaDB({ name: 'ident', serverId: 4242, reportHost: 'ident-0.mysql.ns', t });
  const n = await s.node();
  assert.equal(n.flavour.family, 'mariadb');
  const info = await n.serverInfo();
  assert.equal(info.flavour.major, 10);
  assert.equal(info.serverId, 4242);
  assert.equal(info.reportHost, 'ident-0.mysql.ns');
  assert.equal(info.logBin, true);
  assert.equal(await n.replicationStatus(), null, 'a fresh server is no replica');
  await n.stopReplication();
  await n.resetReplication();
  assert.equal(await n.replicationStatus(), null, 'stop and reset are harmless on a server that is no replica');
});

test('MariaDB 10.11 live: the generated init-file starts the server read-only, unconfigured, with every system user', async (t) => {
  const s = await startMariaDB({ name: 'init', systemUsers: true, t });
  const root = await s.node();
  assert.equal(await root.isReadOnly(), true);
  assert.equal(await root.getStatusValue(STATUS.configured), '0');
  for (const role of ['operator', 'orchestrator', 'replication'] as const) {
    const n = await s.node(s.paramsFor(U[role].user, U[role].password));
    assert.equal(n.flavour.family, 'mariadb', role);
  }
  // exporter and heartbeat are @127.0.0.1 users: the test reaches the server from 127.0.0.1 too.
  await s.node(s.paramsFor(U.exporter.user, U.exporter.password));
  await s.node(s.paramsFor(U.heartbeat.user, U.heartbeat.password));
  const limits = await s.sql("SELECT max_user_connections AS m FROM mysql.user WHERE user = 'sys_exporter'");
  assert.equal(Number(limits[0]?.m), 3);
  // The init-file writes nothing to the binlog (it runs on replicas too).
  const gtid = await s.sql('SELECT @@global.gtid_binlog_pos AS g');
  assert.equal(gtid[0]?.g, '');
});

test('MariaDB 10.11 live: a master made writable comes back read-only after a restart (init-file closes split brain)', async (t) => {
  const s = await startMariaDB({ name: 'restart', systemUsers: true, t });
  const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  await op.setReadOnly(false);
  await op.markConfigured();
  assert.equal(await op.isReadOnly(), false);
  await s.kill();
  await s.start();
  const again = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  assert.equal(await again.isReadOnly(), true);
  assert.equal(await again.isConfigured(), false, 'configured is reset at every start');
});

test('MariaDB 10.11 live: read-only blocks users without READ_ONLY ADMIN but the operator still records status, off the binlog', async (t) => {
  const s = await startMariaDB({ name: 'ro', systemUsers: true, t });
  const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  const hb = await s.node(s.paramsFor(U.heartbeat.user, U.heartbeat.password));
  await op.setReadOnly(true);
  assert.equal(await op.isReadOnly(), true);
  await rejectsWith(hb.ensureHeartbeatTable(), 'read-only');
  const before = await op.gtidExecuted();
  await op.markConfigured();
  assert.equal(await op.isConfigured(), true);
  assert.equal(await op.gtidExecuted(), before, 'status writes create no GTID');
  assert.equal((await op.readOnlyState()).superReadOnly, null, 'MariaDB has no super_read_only');

  await op.setReadOnly(false);
  assert.equal(await op.isReadOnly(), false);
  await hb.ensureHeartbeatTable();
  await hb.writeHeartbeat(7);
  assert.notEqual(await op.gtidExecuted(), before, 'heartbeat writes replicate');
});

test('MariaDB 10.11 live: pointAt with slave_pos replicates rows and the status is normalized', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  await master.sql(
    'CREATE DATABASE app; CREATE TABLE app.t (id int primary key, v varchar(20)); INSERT INTO app.t VALUES (1, "a"), (2, "b")',
  );
  await eventually(
    'rows on the replica',
    async () => (await replica.sql('SELECT COUNT(*) AS c FROM app.t').catch(() => [{ c: 0 }]))[0]?.c === 2,
  );
  const r = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  const st = await r.replicationStatus();
  assert.ok(st);
  assert.equal(st.ioRunning, true);
  assert.equal(st.ioState, 'running');
  assert.equal(st.sqlRunning, true);
  assert.equal(st.masterHost, master.host);
  assert.equal(st.masterPort, master.port);
  assert.equal(st.masterUser, U.replication.user);
  assert.equal(st.usingGtid, true);
  assert.equal(st.lastIoErrno, 0);
  assert.equal(st.lastSqlErrno, 0);
  assert.equal(replicationError(st), null);
  assert.ok(st.secondsBehind !== null && st.secondsBehind >= 0);
  const m = await master.node();
  await eventually('replica caught up', async () => (await r.replicationStatus())?.gtidExecuted === (await m.gtidExecuted()));
  assert.match(st.masterLogFile, /^mysql-bin\.\d+$/);

  await r.stopReplication();
  const stopped = await r.replicationStatus();
  assert.equal(stopped?.sqlRunning, false);
  assert.equal(stopped?.ioState, 'stopped');
  assert.equal(stopped?.secondsBehind, null);
  await r.resetReplication();
  assert.equal(await r.replicationStatus(), null, 'reset forgets the master');
});

test('MariaDB 10.11 live: wrong replication password shows as an IO error in the status, never the password', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const r = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  await r.pointAt(
    { host: master.host, port: master.port },
    { user: U.replication.user, password: 'not-the-password' },
    { connectRetrySeconds: 1 },
  );
  await r.startReplication();
  await eventually('an IO error', async () => ((await r.replicationStatus())?.lastIoErrno ?? 0) !== 0);
  const st = await r.replicationStatus();
  assert.ok(st);
  assert.equal(st.ioRunning, false);
  assert.match(replicationError(st) ?? '', /IO thread error 1045/);
  assert.doesNotMatch(JSON.stringify(st), /not-the-password/);
});

test('MariaDB 10.11 live: GTID seeding after a restore makes the replica continue after the backup point, once', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const r = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  await r.resetReplication();
  // The "backup": rows 1-3 written on the master; the replica gets the same rows by other means
  // (as a restore would) and only the GTID position of that point.
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id int primary key); INSERT INTO app.t VALUES (1), (2), (3)');
  const m = await master.node();
  const backupGtid = await m.gtidExecuted();
  await replica.sql(
    'SET SESSION sql_log_bin = 0; CREATE DATABASE app; CREATE TABLE app.t (id int primary key); INSERT INTO app.t VALUES (1), (2), (3)',
  );
  await r.setStatusValue(STATUS.backupGtidPurged, backupGtid);

  assert.deepEqual(await r.seedGtidAfterClone(), { seeded: true, gtid: backupGtid });
  assert.deepEqual(await r.seedGtidAfterClone(), { seeded: false, gtid: backupGtid }, 'second call does nothing');
  assert.equal(await r.getStatusValue(STATUS.setGtidPurged), backupGtid);
  assert.equal((await replica.sql('SELECT @@global.gtid_slave_pos AS p'))[0]?.p, backupGtid);

  await master.sql('INSERT INTO app.t VALUES (4), (5)');
  await r.pointAt({ host: master.host, port: master.port }, U.replication, { start: { kind: 'gtid', mariadbPos: 'slave_pos' } });
  await r.startReplication();
  await eventually('rows 4 and 5 on the replica', async () => (await replica.sql('SELECT COUNT(*) AS c FROM app.t'))[0]?.c === 5);
  const st = await r.replicationStatus();
  assert.equal(st?.lastSqlErrno, 0, 'no duplicate-key error: rows 1-3 were not replayed');
  assert.equal(st?.sqlRunning, true);
});

test('MariaDB 10.11 live: connection errors are typed and never carry the password', async (t) => {
  const s = await startMariaDB({ name: 'errs', systemUsers: true, t });
  const denied = await rejectsWith(connectNode(s.paramsFor(U.operator.user, 'wrong-secret-xyz')), 'access-denied');
  assert.doesNotMatch(denied.message, /wrong-secret-xyz/);
  assert.match(denied.message, new RegExp(`${s.host.replaceAll('.', '\\.')}:3306`));
  // The heartbeat user may not write while the server is read-only.
  const hb = await s.node(s.paramsFor(U.heartbeat.user, U.heartbeat.password));
  await rejectsWith(hb.ensureHeartbeatTable(), 'read-only');
  await s.stop();
  await rejectsWith(connectNode(s.paramsFor(U.operator.user, U.operator.password)), 'unreachable');
});

test('MariaDB 10.11 live: a node reconnects on its next call after its server restarted', async (t) => {
  const s = await startMariaDB({ name: 'reconn', systemUsers: true, t });
  const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  assert.equal(await op.isReadOnly(), true);
  await s.kill();
  await rejectsWith(op.isReadOnly(), 'unreachable');
  await s.start();
  assert.equal(await op.isReadOnly(), true);
});

test('MariaDB 10.11 live: after a switchover the old master follows the new one with current_pos', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const oldM = await master.node(master.paramsFor(U.operator.user, U.operator.password));
  const newM = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id int primary key); INSERT INTO app.t VALUES (1), (2)');
  await eventually('replica caught up', async () => (await newM.replicationStatus())?.gtidExecuted === (await oldM.gtidExecuted()));

  await oldM.setReadOnly(true);
  await newM.resetReplication();
  await newM.setReadOnly(false);
  await oldM.pointAt({ host: replica.host, port: replica.port }, U.replication, { start: { kind: 'gtid', mariadbPos: 'current_pos' } });
  await oldM.startReplication();
  await replica.sql('INSERT INTO app.t VALUES (3)');
  await eventually('row 3 on the old master', async () => (await master.sql('SELECT COUNT(*) AS c FROM app.t'))[0]?.c === 3);
  const st = await oldM.replicationStatus();
  assert.equal(st?.masterHost, replica.host);
  assert.equal(st?.masterServerId, replica.serverId);
  assert.equal(st?.usingGtid, true);
  assert.equal(st && replicationError(st), null);
});

test('MariaDB 10.11 live: a hung server gives timeout errors within the short timeouts, and the node recovers after', async (t) => {
  const s = await startMariaDB({ name: 'hung', systemUsers: true, t });
  const params = { ...s.paramsFor(U.operator.user, U.operator.password), connectTimeoutMs: 500, queryTimeoutMs: 500 };
  const op = await connectNode(params);
  t.after(() => op.close());
  await s.pause();
  try {
    await rejectsWith(op.isReadOnly(), 'timeout');
    await rejectsWith(connectNode(params), 'timeout');
  } finally {
    s.resume();
  }
  assert.equal(await op.isReadOnly(), true);
  const other = await connectNode(params);
  await s.pause();
  try {
    await other.close(); // does not wait for a server that never answers
  } finally {
    s.resume();
  }
});

test('MariaDB 10.11 live: a replica restarted with keepConfigured + resumeReplication stays configured and catches up on its own', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const r = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  await r.markConfigured();
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id int primary key); INSERT INTO app.t VALUES (1)');
  const flavour = flavourFromVersionSpec('mariadb-10.11');
  assert.ok(flavour && replica.initFilePath);
  writeFileSync(
    replica.initFilePath,
    renderInitFile({
      flavour,
      users: U,
      statusTableMissing: false,
      backupGtid: null,
      restoredFromBucket: false,
      extraSql: [],
      keepConfigured: true,
      resumeReplication: true,
    }),
  );
  writeFileSync(replica.configPath, `${readFileSync(replica.configPath, 'utf8')}skip-slave-start\n`);
  await replica.kill();
  await master.sql('INSERT INTO app.t VALUES (2)');
  await replica.start();
  await eventually(
    'the row written while it was down',
    async () => (await replica.sql('SELECT COUNT(*) AS c FROM app.t').catch(() => [{ c: 0 }]))[0]?.c === 2,
  );
  assert.equal(await r.isConfigured(), true);
  assert.equal(await r.isReadOnly(), true);
  assert.equal((await r.replicationStatus())?.sqlRunning, true);
});
