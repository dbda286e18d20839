import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeReplicationStatus, replicationError } from '../../../src/mysql/index.ts';

// Trimmed rows as each flavour returns them.
const MYSQL57_ROW = {
  Slave_IO_State: 'Waiting for master to send event',
  Master_Host: 'db-mysql-0.mysql.ns',
  Master_User: 'sys_replication',
  Master_Port: 3306,
  Master_Log_File: 'mysql-bin.000002',
  Read_Master_Log_Pos: 1200,
  Relay_Master_Log_File: 'mysql-bin.000002',
  Slave_IO_Running: 'Yes',
  Slave_SQL_Running: 'Yes',
  Exec_Master_Log_Pos: 1100,
  Seconds_Behind_Master: 3,
  Last_IO_Errno: 0,
  Last_IO_Error: '',
  Last_SQL_Errno: 0,
  Last_SQL_Error: '',
  Master_Server_Id: 100,
  Retrieved_Gtid_Set: 'aaaa:1-10',
  Executed_Gtid_Set: 'aaaa:1-9,\nbbbb:1-2',
  Auto_Position: 1,
};

const MYSQL84_ROW = {
  Replica_IO_State: 'Waiting for source to send event',
  Source_Host: 'db-mysql-1.mysql.ns',
  Source_User: 'sys_replication',
  Source_Port: 3306,
  Source_Log_File: 'binlog.000007',
  Read_Source_Log_Pos: 500,
  Relay_Source_Log_File: 'binlog.000007',
  Replica_IO_Running: 'Connecting',
  Replica_SQL_Running: 'Yes',
  Exec_Source_Log_Pos: 450,
  Seconds_Behind_Source: null,
  Last_IO_Errno: 2003,
  Last_IO_Error: "error connecting to source 'sys_replication@db-mysql-1.mysql.ns:3306'",
  Last_SQL_Errno: 0,
  Last_SQL_Error: '',
  Source_Server_Id: 101,
  Retrieved_Gtid_Set: '',
  Executed_Gtid_Set: 'aaaa:1-9',
  Auto_Position: 1,
};

const MARIADB_ROW = {
  Master_Host: '127.0.0.11',
  Master_User: 'sys_replication',
  Master_Port: 3306,
  Master_Log_File: 'mysql-bin.000001',
  Read_Master_Log_Pos: 855,
  Relay_Master_Log_File: 'mysql-bin.000001',
  Slave_IO_Running: 'No',
  Slave_SQL_Running: 'No',
  Exec_Master_Log_Pos: 855,
  Seconds_Behind_Master: null,
  Last_IO_Errno: 0,
  Last_IO_Error: '',
  Last_SQL_Errno: 1062,
  Last_SQL_Error: "Could not execute Write_rows_v1 event on table app.t; Duplicate entry '1'",
  Master_Server_Id: 7,
  Using_Gtid: 'Slave_Pos',
  Gtid_IO_Pos: '0-7-3',
};

test('no row means no replication configured', () => {
  assert.equal(normalizeReplicationStatus([]), null);
});

test('MySQL 5.7 SHOW SLAVE STATUS columns are normalized', () => {
  const s = normalizeReplicationStatus([MYSQL57_ROW]);
  assert.deepEqual(s, {
    ioState: 'running',
    ioRunning: true,
    sqlRunning: true,
    lastIoErrno: 0,
    lastIoError: '',
    lastSqlErrno: 0,
    lastSqlError: '',
    secondsBehind: 3,
    masterHost: 'db-mysql-0.mysql.ns',
    masterPort: 3306,
    masterUser: 'sys_replication',
    masterServerId: 100,
    usingGtid: true,
    gtidReceived: 'aaaa:1-10',
    gtidExecuted: 'aaaa:1-9,bbbb:1-2',
    masterLogFile: 'mysql-bin.000002',
    readMasterLogPos: 1200,
    relayMasterLogFile: 'mysql-bin.000002',
    execMasterLogPos: 1100,
  });
  assert.equal(replicationError(s!), null);
});

test('MySQL 8.0.22+/8.4 SHOW REPLICA STATUS columns (Replica_*, Source_*) are normalized the same way', () => {
  const s = normalizeReplicationStatus([MYSQL84_ROW]);
  assert.ok(s);
  assert.equal(s.ioState, 'connecting');
  assert.equal(s.ioRunning, false);
  assert.equal(s.sqlRunning, true);
  assert.equal(s.secondsBehind, null);
  assert.equal(s.masterHost, 'db-mysql-1.mysql.ns');
  assert.equal(s.masterServerId, 101);
  assert.equal(s.relayMasterLogFile, 'binlog.000007');
  assert.equal(s.execMasterLogPos, 450);
  assert.equal(s.usingGtid, true);
  assert.match(replicationError(s) ?? '', /^IO thread error 2003: error connecting/);
});

test('MariaDB rows use Using_Gtid and Gtid_IO_Pos; the applied position comes from gtid_slave_pos', () => {
  const s = normalizeReplicationStatus([MARIADB_ROW], '0-7-2');
  assert.ok(s);
  assert.equal(s.ioState, 'stopped');
  assert.equal(s.usingGtid, true);
  assert.equal(s.gtidReceived, '0-7-3');
  assert.equal(s.gtidExecuted, '0-7-2');
  assert.match(replicationError(s) ?? '', /^SQL thread error 1062: .*Duplicate entry/);
  assert.equal(normalizeReplicationStatus([{ ...MARIADB_ROW, Using_Gtid: 'No' }])?.usingGtid, false);
});
