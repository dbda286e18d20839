// The init-file's users and grants, exercised live with what each user must (and must not) do.
// Flavour live: MariaDB 10.11.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { flavourFromVersionSpec, renderInitFile, type SystemCredentials } from '../../../src/mysql/index.ts';
import { binlogText, startMariaDB, startReplicationPair, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const U = TEST_SYSTEM_USERS;

async function refused(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: Error) => re.test(e.message));
}

test('MariaDB 10.11 live: the Orchestrator user can inspect and repoint the topology', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const orc = U.orchestrator;
  await master.sql('SHOW SLAVE HOSTS', [], orc);
  await master.sql('SHOW MASTER STATUS; SHOW BINARY LOGS', [], orc);
  await master.sql('SELECT * FROM mysql.user LIMIT 1', [], orc);
  await replica.sql('SHOW SLAVE STATUS', [], orc);
  await replica.sql('STOP SLAVE; START SLAVE', [], orc);
  await replica.sql('SET GLOBAL read_only = 1; SELECT @@global.read_only', [], orc);
  await master.sql(
    'CREATE TABLE IF NOT EXISTS sys_operator.heartbeat (ts varchar(26) NOT NULL, server_id int unsigned NOT NULL PRIMARY KEY)',
  );
  await master.sql('SELECT * FROM sys_operator.heartbeat', [], orc);
  const r = await replica.node();
  await eventually('replica running again', async () => (await r.replicationStatus())?.ioRunning === true);
});

test('MariaDB 10.11 live: the exporter user reads status but has at most 3 connections', async (t) => {
  const s = await startMariaDB({ name: 'exporter', systemUsers: true, t });
  const exp = U.exporter;
  await s.sql('SHOW GLOBAL STATUS; SHOW SLAVE STATUS; SHOW MASTER STATUS; SHOW PROCESSLIST', [], exp);
  const nodes = await Promise.all([1, 2, 3].map(() => s.node(s.paramsFor(exp.user, exp.password))));
  assert.equal(nodes.length, 3);
  await refused(s.node(s.paramsFor(exp.user, exp.password)), /max_user_connections/);
});

test('MariaDB 10.11 live: the heartbeat user writes only its table, and only while writable', async (t) => {
  const s = await startMariaDB({ name: 'hb-grants', systemUsers: true, t });
  const hb = U.heartbeat;
  await s.sql('SET GLOBAL read_only = 0');
  await s.sql(
    'CREATE TABLE IF NOT EXISTS sys_operator.heartbeat (ts varchar(26) NOT NULL, server_id int unsigned NOT NULL PRIMARY KEY)',
    [],
    hb,
  );
  await s.sql("REPLACE INTO sys_operator.heartbeat VALUES ('x', 1); SHOW MASTER STATUS; SHOW SLAVE STATUS", [], hb);
  await refused(s.sql("REPLACE INTO sys_operator.status VALUES ('configured', '1')", [], hb), /denied/);
  await s.sql('SET GLOBAL read_only = 1');
  await refused(s.sql("REPLACE INTO sys_operator.heartbeat VALUES ('y', 1)", [], hb), /read-only|READ.ONLY/i);
});

test('MariaDB 10.11 live: passwords with quotes, backslashes, semicolons and newlines survive the init-file', async (t) => {
  const flavour = flavourFromVersionSpec('mariadb-10.11');
  assert.ok(flavour);
  const tricky = 'q\'uo"te;\\back\nline --#';
  const users: SystemCredentials = { ...U, operator: { user: 'sys_operator', password: tricky } };
  const initFile = renderInitFile({
    flavour,
    users,
    statusTableMissing: true,
    backupGtid: '0-1-7',
    restoredFromBucket: true,
    extraSql: ['CREATE DATABASE IF NOT EXISTS extra_from_user;', "CREATE TABLE extra_from_user.t (q varchar(10) DEFAULT 'why?')"],
  });
  const s = await startMariaDB({ name: 'tricky', initFile, t });
  const op = await s.node(s.paramsFor('sys_operator', tricky));
  assert.equal(await op.getStatusValue('backup_gtid_purged'), '0-1-7');
  assert.equal(await op.isConfigured(), false);
  assert.equal((await s.sql("SHOW TABLES FROM extra_from_user LIKE 't'")).length, 1, 'initFileExtraSQL ran');
  assert.equal(await op.replicationStatus(), null, 'RESET SLAVE ALL ran');
  await refused(s.node(s.paramsFor('sys_operator', 'q')), /Access denied/);
});

// What mariabackup needs is the backup tools' own account's now (credentials.test.ts); the
// replication account reads no table.

test("MariaDB 10.11 live: the init-file's users never reach the binlog, and the file holds no password but the replication credentials row", async (t) => {
  const s = await startMariaDB({ name: 'sys-binlog', systemUsers: true, t });
  // The init-file runs at every start: twice here.
  await s.stop();
  await s.start();
  const creds = Object.values(U);
  for (const c of creds) await s.sql('SELECT 1', [], c);
  const binlog = binlogText(s);
  for (const c of creds) assert.ok(!binlog.includes(c.password), `${c.user}'s password is in the binlog`);
  assert.doesNotMatch(binlog, /CREATE USER|GRANT|sys_operator/, 'SQL_LOG_BIN = 0 keeps the whole file out of the binlog');
  const file = readFileSync(s.initFilePath!, 'utf8');
  for (const c of creds) assert.equal(file.includes(c.password), c === U.replication, `${c.user}'s password in the init-file`);
});
