// Statements per flavour (MySQL 5.7, 8.0 before and from 8.0.23, 8.4, MariaDB 10.6 and 10.11).
// Pure builders; the MariaDB path also runs live in test/integration/mysql.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  changeMasterStatement,
  flavourFromServer,
  flavourFromVersionSpec,
  flavourLine,
  gtidExecutedQuery,
  readOnlyQuery,
  render,
  resetReplicationStatement,
  seedGtidStatements,
  setReadOnlyStatements,
  showBinlogStatusStatement,
  showReplicationStatusStatement,
  startReplicationStatement,
  stopReplicationStatement,
  type Flavour,
} from '../../../src/mysql/index.ts';

function f(spec: string): Flavour {
  const v = flavourFromVersionSpec(spec);
  assert.ok(v, spec);
  return v;
}

const MYSQL57 = f('5.7.35');
const MYSQL8022 = f('8.0.22');
const MYSQL8023 = f('8.0.23');
const MYSQL80 = f('8.0');
const MYSQL84 = f('8.4');
const MARIA106 = f('mariadb-10.6');
const MARIA1011 = f('mariadb-10.11.10');

const SRC = { host: 'db-mysql-0.mysql.ns', port: 3306 };
const CREDS = { user: 'sys_replication', password: "p'w\\x" };

test('version specs and server strings map to flavours', () => {
  assert.deepEqual(f('5.7'), { family: 'mysql', major: 5, minor: 7, patch: 35 });
  assert.deepEqual(f('8.0'), { family: 'mysql', major: 8, minor: 0, patch: 32 });
  assert.deepEqual(f('mariadb-10.11'), { family: 'mariadb', major: 10, minor: 11, patch: 10 });
  assert.deepEqual(f('8.4'), { family: 'mysql', major: 8, minor: 4, patch: 8 });
  assert.deepEqual(f('mariadb-10.5'), { family: 'mariadb', major: 10, minor: 5, patch: 0 });
  assert.deepEqual(f('10.11.19'), { family: 'mariadb', major: 10, minor: 11, patch: 19 });
  assert.equal(flavourFromVersionSpec('latest'), null);
  assert.deepEqual(flavourFromServer('10.11.19-MariaDB-0+deb12u1-log', 'Debian 12'), {
    family: 'mariadb',
    major: 10,
    minor: 11,
    patch: 19,
  });
  assert.deepEqual(flavourFromServer('5.5.5-10.6.16-MariaDB', ''), { family: 'mariadb', major: 10, minor: 6, patch: 16 });
  assert.deepEqual(flavourFromServer('8.0.32-24', 'Percona Server (GPL), Release 24'), { family: 'mysql', major: 8, minor: 0, patch: 32 });
  assert.deepEqual(flavourFromServer('10.5.8', 'mariadb.org binary distribution'), { family: 'mariadb', major: 10, minor: 5, patch: 8 });
  assert.equal(flavourFromServer('garbage', ''), null);
  assert.deepEqual([MYSQL57, MYSQL80, MYSQL84, MARIA1011].map(flavourLine), ['mysql-5.7', 'mysql-8.0', 'mysql-8.4', 'mariadb']);
});

test('MySQL 5.7 and 8.0 before 8.0.23 point at a master with CHANGE MASTER TO and auto-position', () => {
  assert.equal(
    render(changeMasterStatement(MYSQL57, SRC, CREDS)),
    "CHANGE MASTER TO MASTER_HOST = 'db-mysql-0.mysql.ns', MASTER_PORT = 3306, MASTER_USER = 'sys_replication', " +
      "MASTER_PASSWORD = 'p''w\\\\x', MASTER_CONNECT_RETRY = 1, MASTER_AUTO_POSITION = 1",
  );
  assert.equal(
    render(changeMasterStatement(MYSQL8022, SRC, CREDS)),
    "CHANGE MASTER TO MASTER_HOST = 'db-mysql-0.mysql.ns', MASTER_PORT = 3306, MASTER_USER = 'sys_replication', " +
      "MASTER_PASSWORD = 'p''w\\\\x', MASTER_CONNECT_RETRY = 1, MASTER_AUTO_POSITION = 1, GET_MASTER_PUBLIC_KEY = 1",
  );
});

test('MySQL 8.0.23+ and 8.4 point at a source with CHANGE REPLICATION SOURCE TO', () => {
  for (const fl of [MYSQL8023, MYSQL80, MYSQL84]) {
    assert.equal(
      render(changeMasterStatement(fl, SRC, CREDS, { connectRetrySeconds: 3 })),
      "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'db-mysql-0.mysql.ns', SOURCE_PORT = 3306, SOURCE_USER = 'sys_replication', " +
        "SOURCE_PASSWORD = 'p''w\\\\x', SOURCE_CONNECT_RETRY = 3, SOURCE_AUTO_POSITION = 1, GET_SOURCE_PUBLIC_KEY = 1",
    );
  }
});

test('MariaDB points at a master with MASTER_USE_GTID slave_pos by default, current_pos on request', () => {
  for (const fl of [MARIA106, MARIA1011]) {
    assert.equal(
      render(changeMasterStatement(fl, SRC, CREDS)),
      "CHANGE MASTER TO MASTER_HOST = 'db-mysql-0.mysql.ns', MASTER_PORT = 3306, MASTER_USER = 'sys_replication', " +
        "MASTER_PASSWORD = 'p''w\\\\x', MASTER_CONNECT_RETRY = 1, MASTER_USE_GTID = slave_pos",
    );
    assert.match(
      render(changeMasterStatement(fl, SRC, CREDS, { start: { kind: 'gtid', mariadbPos: 'current_pos' } })),
      /MASTER_USE_GTID = current_pos$/,
    );
  }
});

test('binlog file and position replace GTID positioning when asked', () => {
  const start = { kind: 'binlog', file: 'mysql-bin.000003', position: 154 } as const;
  assert.match(
    render(changeMasterStatement(MARIA1011, SRC, CREDS, { start })),
    /MASTER_USE_GTID = no, MASTER_LOG_FILE = 'mysql-bin.000003', MASTER_LOG_POS = 154$/,
  );
  assert.match(
    render(changeMasterStatement(MYSQL57, SRC, CREDS, { start })),
    /MASTER_AUTO_POSITION = 0, MASTER_LOG_FILE = 'mysql-bin.000003', MASTER_LOG_POS = 154$/,
  );
  assert.match(
    render(changeMasterStatement(MYSQL84, SRC, CREDS, { start })),
    /SOURCE_AUTO_POSITION = 0, SOURCE_LOG_FILE = 'mysql-bin.000003', SOURCE_LOG_POS = 154, GET_SOURCE_PUBLIC_KEY = 1$/,
  );
});

test('the loggable text of CHANGE MASTER holds placeholders, never the password', () => {
  for (const fl of [MYSQL57, MYSQL84, MARIA1011]) {
    const s = changeMasterStatement(fl, SRC, { user: 'u', password: 'TopSecret9' });
    assert.doesNotMatch(s.sql, /TopSecret9/);
    assert.doesNotMatch(JSON.stringify(s), /TopSecret9/);
  }
  assert.throws(() => changeMasterStatement(MYSQL57, { host: 'x', port: 0 }, CREDS), /port/);
});

test('thread control and status statements per flavour', () => {
  const table: [Flavour, string, string, string, string, string][] = [
    [MYSQL57, 'START SLAVE', 'STOP SLAVE', 'RESET SLAVE ALL', 'SHOW SLAVE STATUS', 'SHOW MASTER STATUS'],
    [MYSQL8022, 'START SLAVE', 'STOP SLAVE', 'RESET SLAVE ALL', 'SHOW SLAVE STATUS', 'SHOW MASTER STATUS'],
    [MYSQL8023, 'START REPLICA', 'STOP REPLICA', 'RESET REPLICA ALL', 'SHOW REPLICA STATUS', 'SHOW MASTER STATUS'],
    [MYSQL84, 'START REPLICA', 'STOP REPLICA', 'RESET REPLICA ALL', 'SHOW REPLICA STATUS', 'SHOW BINARY LOG STATUS'],
    [MARIA106, 'START SLAVE', 'STOP SLAVE', 'RESET SLAVE ALL', 'SHOW SLAVE STATUS', 'SHOW MASTER STATUS'],
    [MARIA1011, 'START SLAVE', 'STOP SLAVE', 'RESET SLAVE ALL', 'SHOW SLAVE STATUS', 'SHOW MASTER STATUS'],
  ];
  for (const [fl, start, stop, reset, show, binlog] of table) {
    assert.deepEqual(
      [
        startReplicationStatement(fl),
        stopReplicationStatement(fl),
        resetReplicationStatement(fl),
        showReplicationStatusStatement(fl),
        showBinlogStatusStatement(fl),
      ].map(render),
      [start, stop, reset, show, binlog],
      flavourLine(fl),
    );
  }
});

test('read-only: MySQL sets super_read_only too (in a safe order), MariaDB has only read_only', () => {
  for (const fl of [MYSQL57, MYSQL80, MYSQL84]) {
    assert.deepEqual(setReadOnlyStatements(fl, true).map(render), ['SET GLOBAL read_only = 1', 'SET GLOBAL super_read_only = 1']);
    assert.deepEqual(setReadOnlyStatements(fl, false).map(render), ['SET GLOBAL super_read_only = 0', 'SET GLOBAL read_only = 0']);
    assert.match(render(readOnlyQuery(fl)), /super_read_only/);
  }
  for (const fl of [MARIA106, MARIA1011]) {
    assert.deepEqual(setReadOnlyStatements(fl, true).map(render), ['SET GLOBAL read_only = 1']);
    assert.deepEqual(setReadOnlyStatements(fl, false).map(render), ['SET GLOBAL read_only = 0']);
    assert.equal(render(readOnlyQuery(fl)), 'SELECT @@global.read_only AS read_only');
  }
});

test('GTID seeding: MySQL resets its binlog state then sets gtid_purged; 8.4 uses RESET BINARY LOGS AND GTIDS; MariaDB sets gtid_slave_pos', () => {
  const g = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5';
  assert.deepEqual(seedGtidStatements(MYSQL57, g).map(render), ['RESET MASTER', `SET GLOBAL gtid_purged = '${g}'`]);
  assert.deepEqual(seedGtidStatements(MYSQL80, g).map(render), ['RESET MASTER', `SET GLOBAL gtid_purged = '${g}'`]);
  assert.deepEqual(seedGtidStatements(MYSQL84, g).map(render), ['RESET BINARY LOGS AND GTIDS', `SET GLOBAL gtid_purged = '${g}'`]);
  assert.deepEqual(seedGtidStatements(MARIA1011, '0-101-42').map(render), ["SET GLOBAL gtid_slave_pos = '0-101-42'"]);
  assert.deepEqual(seedGtidStatements(MYSQL80, 'aaaa:1-5,\nbbbb:1-2\n').map(render).slice(1), [
    "SET GLOBAL gtid_purged = 'aaaa:1-5,bbbb:1-2'",
  ]);
  assert.throws(() => seedGtidStatements(MARIA106, ' '), /empty GTID/);
  assert.equal(render(gtidExecutedQuery(MYSQL80)), 'SELECT @@global.gtid_executed AS gtid');
  assert.equal(render(gtidExecutedQuery(MARIA106)), 'SELECT @@global.gtid_current_pos AS gtid');
});
