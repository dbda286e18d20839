// The fence (docs/fencing.md), live on MariaDB 10.11: a server that is not the master refuses
// writes from root and from application users (ER_OPTION_PREVENTS_STATEMENT, 1290), the operator's
// bookkeeping still works there without lifting read_only, and a demoted master's client sessions
// are killed while the replication and system sessions go on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { writeFileSync } from 'node:fs';
import { startMariaDB, systemUsersInitFile, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const U = TEST_SYSTEM_USERS;
const ER_OPTION_PREVENTS_STATEMENT = 1290;
const APP = { user: 'app', password: 'app-secret-1' };
/** As the image's root@'%': ALL PRIVILEGES ON *.* WITH GRANT OPTION (which include READ_ONLY ADMIN). */
const ADMIN = { user: 'admin', password: 'admin-secret-1' };
const SYSTEM_USERS = Object.values(U).map((c) => c.user);

async function refusedReadOnly(p: Promise<unknown>): Promise<void> {
  await assert.rejects(p, (e: { errno?: number; message: string }) => {
    assert.equal(e.errno, ER_OPTION_PREVENTS_STATEMENT, e.message);
    return true;
  });
}

/**
 * A server whose first start made a root-like admin (the init-file's extra SQL, after the fence,
 * so it holds READ_ONLY ADMIN until the next start: an account made on a server already running),
 * made writable by the operator user, with an app schema and the Secret's USER (ALL on its schema).
 */
async function startWithClients(t: { after(fn: () => unknown): void }, name: string): Promise<MariaDBServer> {
  const s = await startMariaDB({
    name,
    t,
    initFile: systemUsersInitFile(
      [`CREATE USER '${ADMIN.user}'@'%' IDENTIFIED BY '${ADMIN.password}'`, `GRANT ALL ON *.* TO '${ADMIN.user}'@'%' WITH GRANT OPTION`],
      { fenceRoot: true },
    ),
  });
  if (s.initFilePath) writeFileSync(s.initFilePath, systemUsersInitFile([], { fenceRoot: true }));
  const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  await op.setReadOnly(false);
  await s.sql(
    'CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); ' +
      `CREATE USER '${APP.user}'@'%' IDENTIFIED BY '${APP.password}'; GRANT ALL ON app.* TO '${APP.user}'@'%'`,
  );
  return s;
}

test('MariaDB 10.11 live: a server that is not the master refuses writes from root, a root-like admin and the application user (1290); the operator bookkeeps without lifting read_only', async (t) => {
  const s = await startWithClients(t, 'fence');
  // A restart, as after a kill: the init-file fences again, also the accounts made since.
  await s.stop();
  await s.start();
  assert.equal(Number((await s.sql('SELECT @@global.read_only AS ro'))[0]?.ro), 1);

  await refusedReadOnly(s.sql('INSERT INTO app.t VALUES (1)'));
  await refusedReadOnly(s.sql('INSERT INTO app.t VALUES (2)', [], ADMIN));
  await refusedReadOnly(s.sql('INSERT INTO app.t VALUES (3)', [], APP));
  // Nor can root lift the fence itself.
  await assert.rejects(s.sql('SET GLOBAL read_only = 0'), /READ_ONLY ADMIN/);

  const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  await op.markConfigured();
  await op.setStatusValue('fence-test', 'x');
  assert.equal(await op.isConfigured(), true);
  assert.equal(await op.isReadOnly(), true);
  assert.equal((await s.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n, 0);
});

test("MariaDB 10.11 live: a demoted master's client sessions are killed and cannot write; replication and the system users' sessions go on", async (t) => {
  const [master, replica] = await Promise.all([
    startWithClients(t, 'fence-m'),
    startMariaDB({ name: 'fence-r', systemUsers: true, fenceRoot: true, t }),
  ]);
  const r = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  await r.pointAt({ host: master.host, port: master.port }, U.replication);
  await r.startReplication();
  await eventually('replica replicating', async () => (await r.replicationStatus())?.ioRunning === true);

  // Sessions with a transaction open across the demotion: the application user, and an admin
  // whose account still holds READ_ONLY ADMIN (made since the server started).
  const clients = await Promise.all([APP, ADMIN].map((who) => mysql.createConnection({ host: master.host, port: master.port, ...who })));
  for (const c of clients) {
    c.on('error', () => undefined);
    t.after(() => c.destroy());
  }
  for (const [i, c] of clients.entries()) {
    await c.query('BEGIN');
    await c.query('INSERT INTO app.t VALUES (?)', [i + 1]);
  }
  const exporter = await master.node(master.paramsFor(U.exporter.user, U.exporter.password));

  const op = await master.node(master.paramsFor(U.operator.user, U.operator.password));
  assert.deepEqual(await op.killClientSessions(SYSTEM_USERS), { readOnly: false, killed: [] }, 'a writable master keeps its clients');
  await op.setReadOnly(true);
  const done = await op.killClientSessions(SYSTEM_USERS);
  assert.deepEqual({ ...done, killed: [...done.killed].sort() }, { readOnly: true, killed: [ADMIN.user, APP.user] });

  for (const c of clients) await assert.rejects(c.query('COMMIT'));
  // A new session is refused by read_only.
  await refusedReadOnly(master.sql('INSERT INTO app.t VALUES (3)', [], APP));
  assert.equal((await master.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n, 0, 'the open transaction was rolled back');
  // The operator's own session, the exporter's and the replica's binlog dump survived.
  assert.equal(await op.isReadOnly(), true);
  assert.ok((await exporter.serverInfo()).serverId > 0);
  const st = await r.replicationStatus();
  assert.equal(st?.ioRunning, true, JSON.stringify(st));
});
