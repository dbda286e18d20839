import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createHeartbeatTableStatement,
  getStatusStatement,
  heartbeatLagQuery,
  render,
  setStatusStatement,
  STATUS,
  writeHeartbeatStatement,
} from '../../../src/mysql/index.ts';

test("the heartbeat table has pt-heartbeat's columns", () => {
  const ddl = render(createHeartbeatTableStatement());
  assert.match(ddl, /^CREATE TABLE IF NOT EXISTS sys_operator\.heartbeat \(/);
  for (const col of [
    'ts varchar(26) NOT NULL',
    'server_id int unsigned NOT NULL PRIMARY KEY',
    'file varchar(255)',
    'position bigint unsigned',
    'relay_master_log_file varchar(255)',
    'exec_master_log_pos bigint unsigned',
  ]) {
    assert.ok(ddl.includes(col), col);
  }
});

test("a heartbeat row is stamped with the server's UTC time in pt-heartbeat's format", () => {
  const sql = render(
    writeHeartbeatStatement(101, { file: 'mysql-bin.000002', position: 345, relayMasterLogFile: null, execMasterLogPos: null }),
  );
  assert.equal(
    sql,
    'REPLACE INTO sys_operator.heartbeat (ts, server_id, file, position, relay_master_log_file, exec_master_log_pos) ' +
      "VALUES (DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%f'), 101, 'mysql-bin.000002', 345, NULL, NULL)",
  );
});

test('lag is read from the newest row and never negative', () => {
  assert.match(render(heartbeatLagQuery()), /GREATEST\(0, .*ORDER BY ts DESC LIMIT 1$/);
});

test('status rows use the anchor names and REPLACE form', () => {
  assert.deepEqual(STATUS, {
    configured: 'configured',
    backupGtidPurged: 'backup_gtid_purged',
    setGtidPurged: 'set_gtid_purged',
    replicationUser: 'replication_user',
    replicationPassword: 'replication_password',
  });
  assert.equal(render(setStatusStatement('configured', '1')), "REPLACE INTO sys_operator.status VALUES ('configured', '1')");
  assert.equal(render(getStatusStatement('configured')), "SELECT value FROM sys_operator.status WHERE name = 'configured'");
});
