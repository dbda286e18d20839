// Issue 23 item 3 (docs/credentials.md): the replication password is stored nowhere Orchestrator's
// topology account can read. Before, the init-file wrote it into sys_operator.status for the
// chart's ReplicationCredentialsQuery, and that account could SELECT it. Live on MariaDB 10.11
// (no mysql.slave_master_info there; the MySQL statements are unit-tested in
// test/unit/mysql/init-file.test.ts), on a replica whose replication runs with that password.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { flavourFromVersionSpec, quoteIdentifier, renderInitFile } from '../../../src/mysql/index.ts';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';

const U = TEST_SYSTEM_USERS;

/** Every row of every table `as` may read, as text, with where it came from. */
async function everythingReadableBy(s: MariaDBServer, as: { user: string; password: string }): Promise<Map<string, string>> {
  const tables = await s.sql(
    'SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t FROM information_schema.TABLES ORDER BY TABLE_SCHEMA, TABLE_NAME',
    [],
    as,
  );
  const seen = new Map<string, string>();
  for (const { s: schema, t: table } of tables) {
    const name = `${quoteIdentifier(String(schema))}.${quoteIdentifier(String(table))}`;
    const rows = await s.sql(`SELECT * FROM ${name} LIMIT 20000`, [], as).catch(() => []);
    seen.set(name, JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? v.toString('utf8') : v)));
  }
  return seen;
}

test("MariaDB 10.11 live: Orchestrator's topology account reads the replication password nowhere, on a replica replicating with it, even where an earlier version left it stored", async (t) => {
  const [master, replica] = await Promise.all(
    ['pw-nowhere-0', 'pw-nowhere-1'].map((name) => startMariaDB({ name, systemUsers: true, t })),
  );
  assert.ok(master && replica);
  await (await master.node()).setReadOnly(false);
  const n = await replica.node();
  await n.pointAt({ host: master.host, port: master.port }, U.replication);
  await n.startReplication();
  await (await master.node()).ensureHeartbeatTable();
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  // The replica replicates as sys_replication with the password this test looks for.
  for (;;) {
    const rows = await replica.sql('SELECT COUNT(*) AS n FROM app.t').catch(() => []);
    if (Number(rows[0]?.n) === 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await n.replicationStatus())?.masterUser, U.replication.user);

  for (const s of [master, replica]) {
    const readable = await everythingReadableBy(s, U.orchestrator);
    assert.ok(readable.size > 10, `${s.name}: Orchestrator reads ${readable.size} tables (mysql.*, the heartbeat table, ...)`);
    assert.ok(readable.has('`sys_operator`.`heartbeat`'), 'the lag query still reads the heartbeat table');
    for (const [table, text] of readable) {
      assert.ok(!text.includes(U.replication.password), `${s.name}: the replication password is readable in ${table}`);
    }
    assert.deepEqual(await s.sql("SELECT COUNT(*) AS n FROM sys_operator.status WHERE name LIKE 'replication%'"), [{ n: 0 }]);
  }

  // A pod an older sidecar started writes the rows again: its init-file's grants are this
  // version's once the server restarts with it; until then the node controller removes them.
  await replica.sql(
    `SET sql_log_bin = 0; REPLACE INTO sys_operator.status VALUES ('replication_password', '${U.replication.password}'); SET sql_log_bin = 1`,
  );
  await assert.rejects(
    replica.sql("SELECT value FROM sys_operator.status WHERE name = 'replication_password'", [], U.orchestrator),
    /SELECT command denied .*`status`/,
    'Orchestrator cannot read the status table',
  );
  assert.equal(await n.hasStoredReplicationCredentials(), true);
  const before = await replica.sql('SELECT @@gtid_binlog_pos AS pos');
  await n.forgetStoredReplicationCredentials();
  assert.equal(await n.hasStoredReplicationCredentials(), false);
  assert.deepEqual(await replica.sql('SELECT @@gtid_binlog_pos AS pos'), before, 'removed with the binlog off');

  // An earlier version's init-file left the rows; this version's removes them at the next start.
  await replica.sql(
    `SET sql_log_bin = 0; REPLACE INTO sys_operator.status VALUES ('replication_user', 'sys_replication'), ('replication_password', '${U.replication.password}'); SET sql_log_bin = 1`,
  );
  const flavour = flavourFromVersionSpec('mariadb-10.11');
  assert.ok(flavour && replica.initFilePath);
  writeFileSync(
    replica.initFilePath,
    renderInitFile({ flavour, users: U, statusTableMissing: false, backupGtid: null, restoredFromBucket: false, extraSql: [] }),
  );
  await replica.stop();
  await replica.start();
  assert.deepEqual(await replica.sql("SELECT COUNT(*) AS n FROM sys_operator.status WHERE name LIKE 'replication%'"), [{ n: 0 }]);
});
