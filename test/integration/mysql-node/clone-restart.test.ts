// A cloned replica whose mysql container alone restarts (a crash, an OOM kill): the kubelet does
// not run the init container again, so mysqld runs the init-file written at the clone once more.
// It drops and re-creates the status table (the clone had left it without a data file) and writes
// the backup's GTID again: the server looks freshly cloned while its position is far past the
// clone's. MariaDB 10.11 servers stand in for the pods.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { initFile, killAndReconfigure, nodeCluster, waitSameData } from './node-cluster.ts';

test("a cloned replica whose mysqld restarts resumes from its own position, not the clone's", async (t) => {
  const c = await nodeCluster(t, 2);
  const [m, r] = [c.servers[0]!, c.servers[1]!];
  // The clone: pod 1 holds the master's data at the master's GTID 0-100-2 (written here with the
  // binlog off, as mariabackup copies it), and the init-file clone-and-init writes after a clone.
  const setup = 'CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY)';
  await m.sql(`SET GLOBAL read_only = 0; ${setup}`);
  const [backup] = await m.sql('SELECT @@global.gtid_binlog_pos AS gtid');
  const backupGtid = String(backup?.gtid);
  assert.match(backupGtid, /^0-100-\d+$/);
  await r.sql(`SET SESSION sql_log_bin = 0; ${setup}`);
  writeFileSync(r.initFilePath!, initFile({ firstStart: true, backupGtid }));
  await r.kill();
  await r.start();

  await c.bootstrap();
  await c.waitCondition(1, 'True');
  await m.sql('INSERT INTO app.t VALUES (1), (2)');
  await waitSameData(m, r, 'app.t');

  await killAndReconfigure(c, 1, 'INSERT INTO app.t VALUES (3)');
  // Seeded again at the clone's GTID, it would replay rows 1 and 2: duplicate keys, the SQL
  // thread stopped (in the sandbox: CREATE TABLE replayed over the table's rows).
  await m.sql('INSERT INTO app.t VALUES (4)');
  await waitSameData(m, r, 'app.t');
  const [status] = await r.sql('SELECT @@global.gtid_slave_pos AS pos');
  assert.notEqual(String(status?.pos), backupGtid, "the replica position is past the clone's");
  assert.equal((await c.condition(1))?.status, 'True');
});
