// The replication credentials Orchestrator's ReplicationCredentialsQuery (the chart's query) reads
// from each server: written by the init-file at every start from the operated Secret, readable by
// Orchestrator's user, not by the heartbeat user or an application account, never binlogged.
// Flavour live: MariaDB 10.11 (the MySQL statements are unit-tested in test/unit/mysql/init-file.test.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { flavourFromVersionSpec, renderInitFile, REPLICATION_CREDENTIALS_QUERY } from '../../../src/mysql/index.ts';
import { startMariaDB, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';

const U = TEST_SYSTEM_USERS;

/** Orchestrator's view: the first row's columns, in order. */
async function credentialsAs(
  s: { sql: (q: string, v: unknown[], as: { user: string; password: string }) => Promise<Record<string, unknown>[]> },
  as: { user: string; password: string },
): Promise<unknown[]> {
  const [row] = await s.sql(REPLICATION_CREDENTIALS_QUERY, [], as);
  return Object.values(row ?? {});
}

test("MariaDB 10.11 live: Orchestrator's user gets the Secret's replication credentials with the chart's query; a rotated password follows at the next start; nothing is binlogged", async (t) => {
  const s = await startMariaDB({ name: 'repl-creds', systemUsers: true, t });
  assert.deepEqual(await credentialsAs(s, U.orchestrator), [U.replication.user, U.replication.password]);
  // The init-file ran with the binlog off: a replica gets no transaction of its own (errant GTID).
  assert.deepEqual(await s.sql('SELECT @@gtid_binlog_pos AS pos'), [{ pos: '' }]);

  const flavour = flavourFromVersionSpec('mariadb-10.11');
  assert.ok(flavour && s.initFilePath);
  const rotated = { ...U.replication, password: "rotated'Pw-2" };
  writeFileSync(
    s.initFilePath,
    renderInitFile({
      flavour,
      users: { ...U, replication: rotated },
      statusTableMissing: false,
      backupGtid: null,
      restoredFromBucket: false,
      extraSql: [],
    }),
  );
  await s.stop();
  await s.start();
  assert.deepEqual(await credentialsAs(s, U.orchestrator), [rotated.user, rotated.password]);
  await s.sql('SELECT 1', [], rotated);
  assert.deepEqual(await s.sql('SELECT @@gtid_binlog_pos AS pos'), [{ pos: '' }]);
});

test('MariaDB 10.11 live: the heartbeat user and an account granted on its own schema cannot read the replication password', async (t) => {
  const s = await startMariaDB({ name: 'repl-creds-deny', systemUsers: true, t });
  const app = { user: 'app', password: 'app-pw' };
  await s.sql("CREATE DATABASE app; CREATE USER app@'%' IDENTIFIED BY 'app-pw'; GRANT ALL ON app.* TO app@'%'");
  for (const who of [U.heartbeat, app]) {
    await assert.rejects(credentialsAs(s, who), /SELECT command denied .*`status`/, who.user);
  }
});
