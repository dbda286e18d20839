// Errant transactions: what a server holds that its would-be master lacks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extraGtids, gtidHistoryQuery, positionHolds, render, flavourFromVersionSpec } from '../../../src/mysql/index.ts';

test('MariaDB: binlog state entries are compared per domain and server_id, not per domain', () => {
  assert.deepEqual(extraGtids('mariadb', '0-100-10', '0-100-10,0-101-12'), []);
  assert.deepEqual(extraGtids('mariadb', '0-100-11', '0-100-10,0-101-12'), ['0-100-11']);
  assert.deepEqual(extraGtids('mariadb', '0-100-11,1-100-3', '0-100-11'), ['1-100-3']);
  assert.deepEqual(extraGtids('mariadb', '0-101-5, 0-100-9', '0-100-10,0-101-12'), []);
  assert.deepEqual(extraGtids('mariadb', '', '0-100-1'), []);
});

test("MariaDB: a replica's own write is errant though the master's domain position is past its sequence number", () => {
  // Replica 102 applied 0-100-50 and wrote 0-102-51 itself (sql_log_bin=1); the master went on to 0-100-60.
  assert.deepEqual(extraGtids('mariadb', '0-100-50,0-102-51', '0-100-60'), ['0-102-51']);
  // After a failover: the old master's write 0-100-11 no replica received, the new master at 0-101-12.
  assert.deepEqual(extraGtids('mariadb', '0-100-11', '0-100-10,0-101-12'), ['0-100-11']);
});

test('MariaDB: a master cloned at a position holds what its empty binlog does not name, up to that position', () => {
  // Pod 1 was cloned at 0-100-40 and promoted: its binlog names only its own writes since.
  assert.deepEqual(extraGtids('mariadb', '0-100-40,0-101-70', '0-101-70'), ['0-100-40']);
  assert.deepEqual(extraGtids('mariadb', '0-100-40,0-101-70', '0-101-70', '0-100-40'), []);
  // A write of server 100 past the base the master's binlog never shows: the master lacks it.
  assert.deepEqual(extraGtids('mariadb', '0-100-45,0-101-70', '0-101-70', '0-100-40'), ['0-100-45']);
  // The base never excuses a server_id the master's binlog names at a lower sequence number.
  assert.deepEqual(extraGtids('mariadb', '0-100-45', '0-100-41', '0-100-50'), ['0-100-45']);
  // Another domain's base does not count; a multi-line base is read whole.
  assert.deepEqual(extraGtids('mariadb', '1-100-5', '0-101-70', '0-100-40'), ['1-100-5']);
  assert.deepEqual(extraGtids('mariadb', '1-100-5', '0-101-70', '0-100-40,\n1-100-9'), []);
});

test('MySQL: the GTID set difference, interval by interval, tags kept apart', () => {
  assert.deepEqual(extraGtids('mysql', 'aaaa:1-10', 'aaaa:1-10,bbbb:1-2'), []);
  assert.deepEqual(extraGtids('mysql', 'aaaa:1-12', 'aaaa:1-10'), ['aaaa:11-12']);
  assert.deepEqual(extraGtids('mysql', 'AAAA:1-20,\nbbbb:1-3', 'aaaa:1-4:6-9:15,bbbb:1-3'), ['aaaa:5:10-14:16-20']);
  assert.deepEqual(extraGtids('mysql', 'aaaa:1-3:t1:1-2', 'aaaa:1-3'), ['aaaa:t1:1-2']);
});

test('the history a server is compared by: gtid_binlog_state on MariaDB, gtid_executed on MySQL', () => {
  assert.equal(render(gtidHistoryQuery(flavourFromVersionSpec('mariadb-10.11')!)), 'SELECT @@global.gtid_binlog_state AS gtid');
  assert.equal(render(gtidHistoryQuery(flavourFromVersionSpec('8.0')!)), 'SELECT @@global.gtid_executed AS gtid');
});

test("a server's own position holds a backup's GTID set: per domain on MariaDB, as a set on MySQL", () => {
  assert.equal(positionHolds('mariadb', '0-100-261', '0-100-3'), true);
  // A failover since the clone: the domain's position names the new master's server_id.
  assert.equal(positionHolds('mariadb', '0-101-300', '0-100-3'), true);
  assert.equal(positionHolds('mariadb', '', '0-100-3'), false);
  assert.equal(positionHolds('mariadb', '0-100-261', '0-100-3,1-100-2'), false);
  assert.equal(positionHolds('mysql', 'aaaa:1-261,\nbbbb:1-2', 'aaaa:1-3'), true);
  assert.equal(positionHolds('mysql', 'bbbb:1-2', 'aaaa:1-3'), false);
});
