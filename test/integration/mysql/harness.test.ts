// test/support/mariadb.ts itself: servers in parallel, restarts on the same datadir, cleanup.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { startMariaDB } from '../../support/mariadb.ts';

test('MariaDB 10.11 harness: parallel servers get distinct loopback addresses on port 3306 and distinct server ids', async (t) => {
  const servers = await Promise.all([1, 2, 3].map((i) => startMariaDB({ name: `par${i}`, t })));
  assert.equal(new Set(servers.map((s) => s.host)).size, 3);
  assert.equal(new Set(servers.map((s) => s.serverId)).size, 3);
  for (const s of servers) {
    assert.equal(s.port, 3306);
    const id = await s.sql('SELECT @@server_id AS id');
    assert.equal(Number(id[0]?.id), s.serverId);
  }
});

test('MariaDB 10.11 harness: a server keeps its data across stop/start and kill/start; cleanup removes everything', async (t) => {
  const s = await startMariaDB({ name: 'life', t });
  await s.sql('CREATE DATABASE keep; CREATE TABLE keep.t (id int primary key); INSERT INTO keep.t VALUES (1)');
  await s.stop();
  assert.equal(s.running(), false);
  await s.start();
  await s.kill();
  await s.start();
  assert.equal((await s.sql('SELECT COUNT(*) AS c FROM keep.t'))[0]?.c, 1);
  await s.cleanup();
  assert.equal(s.running(), false);
  assert.equal(existsSync(s.dir), false);
});

test('MariaDB 10.11 harness: a server on 127.0.0.1 with a free port, when asked', async (t) => {
  const s = await startMariaDB({ name: 'port', port: 0, t });
  assert.equal(s.host, '127.0.0.1');
  assert.notEqual(s.port, 3306);
  assert.equal((await s.sql('SELECT 1 AS one'))[0]?.one, 1);
});

test('MariaDB 10.11 harness: a server that cannot start reports its error log', async (t) => {
  await assert.rejects(startMariaDB({ name: 'broken', extraConfig: 'no-such-option=1', t }), /exited during start[\s\S]*no-such-option/);
});
