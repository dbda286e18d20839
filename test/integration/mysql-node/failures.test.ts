// Issue 6 acceptance: an unreachable master, a wrong replication password, and an operator
// killed between any two steps (MariaDB 10.11 servers standing in for the pods).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeCluster, podName, tableDigest, waitSameData } from './node-cluster.ts';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';

function logLines(out: string): Record<string, unknown>[] {
  return out.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

test('with the master unreachable the pod is not configured and says why; when it is back, it converges', async (t) => {
  const c = await nodeCluster(t, 2);
  const [m, r] = [c.servers[0]!, c.servers[1]!];
  await m.stop();
  const op = await c.bootstrap();

  const cond = await c.waitCondition(1, 'False', /MasterUnreachable/);
  assert.match(cond.message ?? '', new RegExp(podName(0)));
  assert.equal(await (await c.root(1)).isConfigured(), false);
  assert.match((await c.waitCondition(0, 'False', /ServerUnreachable/)).message ?? '', new RegExp(podName(0)));
  // Retried with backoff: each attempt is refused again, and the queue's delay grows.
  const retries = (): number[] =>
    logLines(op.output())
      .filter((l) => l.object === `${c.ns}/${podName(1)}` && typeof l.retryInMs === 'number')
      .map((l) => l.retryInMs as number);
  await eventually('three attempts', async () => retries().length >= 3, 60_000);
  const [r1, r2, r3] = retries();
  assert.ok(r1! < r2! && r2! < r3!, `retry delays grow: ${retries().join(', ')}`);

  await m.start();
  await c.markStarted(0);
  await c.waitCondition(1, 'True');
  await m.sql('SET GLOBAL read_only = 0');
  await m.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  await waitSameData(m, r, 'app.t');
});

test('a wrong replication password gives a condition naming the Secret key, and no password in the logs', async (t) => {
  const c = await nodeCluster(t, 2);
  const [m, r] = [c.servers[0]!, c.servers[1]!];
  const wrong = 'not-the-Repl-Password-42';
  const op = await c.bootstrap({ secret: { REPLICATION_PASSWORD: wrong } });

  const cond = await c.waitCondition(1, 'False', /REPLICATION_PASSWORD/);
  assert.match(cond.message ?? '', /ReplicationAccessDenied: .*key REPLICATION_PASSWORD of Secret my-db-mysql-operated/);
  assert.ok(!cond.message?.includes(wrong));
  assert.equal(await (await c.root(1)).isConfigured(), false);

  // The fixed Secret is picked up by a later attempt.
  await c.setOperatedSecret({ REPLICATION_PASSWORD: TEST_SYSTEM_USERS.replication.password });
  await c.waitCondition(1, 'True');
  await m.sql('SET GLOBAL read_only = 0');
  await m.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  await waitSameData(m, r, 'app.t');

  const logs = op.output();
  for (const pw of [wrong, TEST_SYSTEM_USERS.replication.password, TEST_SYSTEM_USERS.operator.password]) {
    assert.ok(!logs.includes(pw), 'a password appeared in the operator logs');
  }
  const events = await c.client.list<KubeObject & { reason?: string; message?: string }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: c.ns },
  );
  assert.ok(events.items.some((e) => e.reason === 'ReplicationAccessDenied'));
  assert.ok(events.items.every((e) => !(e.message ?? '').includes(wrong)));
});

test('a replication error that quotes a password (a replicated CREATE USER) is masked in the pod condition and the Event', async (t) => {
  const c = await nodeCluster(t, 2);
  const [m, r] = [c.servers[0]!, c.servers[1]!];
  const password = 'hunter2-Secret-Value';
  // The replica already has the user, so replaying the master's CREATE USER stops its SQL thread
  // with MariaDB's error text quoting the statement, password included.
  await r.sql("SET SESSION sql_log_bin = 0; CREATE USER 'app'@'%' IDENTIFIED BY 'other'");
  await m.sql(`SET GLOBAL read_only = 0; CREATE USER 'app'@'%' IDENTIFIED BY '${password}'`);
  // The replica already replicates and has stopped on that statement before the operator looks:
  // had the operator started replication itself, it could mark the pod configured in the moment
  // between the SQL thread starting and failing (a race the test must not depend on).
  const replica = await c.root(1);
  await replica.pointAt({ host: m.host, port: m.port }, TEST_SYSTEM_USERS.replication);
  await replica.startReplication();
  const stopped = await eventually('the replica stopped on the replicated CREATE USER', async () => {
    const s = await replica.replicationStatus();
    return s?.lastSqlErrno === 1396 ? s : undefined;
  });
  // Read before the operator runs: a retry of the SQL thread clears the text until it fails again.
  assert.ok(stopped.lastSqlError.includes(password), 'the server does quote it');
  await c.bootstrap();

  const cond = await c.waitCondition(1, 'False', /ReplicationError/);
  assert.match(
    cond.message ?? '',
    /ReplicationError: replication from my-db-mysql-0 stopped applying: error 1396: .*IDENTIFIED BY '\*\*\*'/,
  );
  assert.ok(!(cond.message ?? '').includes(password), cond.message);
  // The Event is posted after the condition is written, not awaited by the pass: wait for it.
  const events = await eventually('the ReplicationError Event', async () => {
    const list = await c.client.list<KubeObject & { reason?: string; message?: string }>(
      { apiVersion: 'v1', kind: 'Event' },
      { namespace: c.ns },
    );
    return list.items.some((e) => e.reason === 'ReplicationError') ? list : undefined;
  });
  assert.ok(events.items.every((e) => !(e.message ?? '').includes(password)));
});

// Steps for a cloned, writable replica: setReadOnly, seedGtid, pointAt, startReplication,
// markConfigured. The operator is killed right after step k, writes continue on the master, and
// a new operator finishes the job.
const STEPS = ['setReadOnly', 'seedGtid', 'pointAt', 'startReplication', 'markConfigured'];
for (const k of [1, 2, 3, 4]) {
  test(`an operator killed after step ${k} of 5 and restarted leaves the replica configured with the master's exact data`, async (t) => {
    const c = await nodeCluster(t, 2);
    const [m, r] = [c.servers[0]!, c.servers[1]!];
    await m.sql('SET GLOBAL read_only = 0');
    await m.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(30))');
    for (let i = 1; i <= 20; i++) await m.sql('INSERT INTO app.t VALUES (?, ?)', [i, `before-clone-${i}`]);
    // A clone as clone-and-init leaves it: the data up to a GTID, that GTID recorded as
    // backup_gtid_purged, no replication settings, and (here) writable.
    const [{ gtid }] = (await m.sql('SELECT @@gtid_current_pos AS gtid')) as [{ gtid: string }];
    await r.sql(
      'SET SESSION sql_log_bin = 0; SET GLOBAL read_only = 0; CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(30))',
    );
    const rows = Array.from({ length: 20 }, (_, j) => `(${j + 1}, 'before-clone-${j + 1}')`).join(', ');
    await r.sql(`SET SESSION sql_log_bin = 0; INSERT INTO app.t VALUES ${rows}`);
    await r.sql("SET SESSION sql_log_bin = 0; REPLACE INTO sys_operator.status VALUES ('backup_gtid_purged', ?)", [gtid]);
    for (let i = 21; i <= 30; i++) await m.sql('INSERT INTO app.t VALUES (?, ?)', [i, `after-clone-${i}`]);

    const first = await c.bootstrap({ operator: { killAfterSteps: k, killPod: podName(1) } });
    assert.equal(await first.exited, null, 'the first operator was killed');
    assert.match(first.output(), new RegExp(`test: killing the operator","pod":"${podName(1)}","step":"${STEPS[k - 1]}"`));
    for (let i = 31; i <= 40; i++) await m.sql('INSERT INTO app.t VALUES (?, ?)', [i, `while-down-${i}`]);

    const second = c.startOperator();
    t.after(() => second.stop());
    await c.waitCondition(1, 'True');
    for (let i = 41; i <= 50; i++) await m.sql('INSERT INTO app.t VALUES (?, ?)', [i, `after-${i}`]);
    await waitSameData(m, r, 'app.t');
    assert.equal(await tableDigest(r, 'app.t'), await tableDigest(m, 'app.t'));
    assert.equal((await r.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n, 50);
    const rs = await (await c.root(1)).replicationStatus();
    assert.equal(rs?.sqlRunning && rs.ioRunning, true);
    assert.equal(rs?.lastSqlErrno, 0);
  });
}
