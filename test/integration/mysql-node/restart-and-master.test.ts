// Issue 6 acceptance: restarts of a replica's mysqld, and a master that is not pod 0
// (MariaDB 10.11 servers standing in for the pods).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { initFile, killAndReconfigure, nodeCluster, waitSameData } from './node-cluster.ts';
import { eventually } from '../../support/wait.ts';

test('a replica whose mysqld was killed and started again is re-configured and catches up', async (t) => {
  const c = await nodeCluster(t, 2);
  const [m, r] = [c.servers[0]!, c.servers[1]!];
  await c.bootstrap();
  await c.waitCondition(1, 'True');
  await m.sql('SET GLOBAL read_only = 0');
  await m.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1), (2)');
  await waitSameData(m, r, 'app.t');

  // The anchor's init-file: read-only again, configured reset to 0 until the operator looks.
  await killAndReconfigure(c, 1, 'INSERT INTO app.t VALUES (3), (4)');
  await m.sql('INSERT INTO app.t VALUES (5)');
  await waitSameData(m, r, 'app.t');
  assert.equal((await c.condition(1))?.status, 'True');
});

test('a replica restarted while the operator is down resumes on its own and is re-checked later', async (t) => {
  const c = await nodeCluster(t, 2);
  const [m, r] = [c.servers[0]!, c.servers[1]!];
  const op = await c.bootstrap();
  await c.waitCondition(1, 'True');
  await c.waitCondition(0, 'True');
  const before = await c.condition(1);
  await op.stop();
  // The operator being down changes nothing on the servers: both stay configured (Ready).
  assert.equal(await (await c.root(0)).isConfigured(), true);
  assert.equal(await (await c.root(1)).isConfigured(), true);

  await m.sql('SET GLOBAL read_only = 0');
  await m.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
  // What clone-and-init writes when the datadir's replication settings are intact and the
  // master answers: keep `configured`, resume replication (docs/node-controller.md).
  writeFileSync(r.initFilePath!, initFile({ firstStart: false, keepConfigured: true, resumeReplication: true }));
  await r.kill();
  await r.start();
  await c.markStarted(1);
  // No operator running: still configured (the readiness probe's query) and replicating.
  assert.equal(await (await c.root(1)).isConfigured(), true);
  await waitSameData(m, r, 'app.t');

  const op2 = c.startOperator();
  t.after(() => op2.stop());
  // Back, the operator re-checks the node (a new lastProbeTime), without re-pointing it.
  await eventually('the operator to re-check pod 1', async () => (await c.condition(1))?.lastProbeTime !== before?.lastProbeTime, 60_000);
  assert.equal((await c.condition(1))?.status, 'True');
  assert.doesNotMatch(op2.output(), /"step":"pointAt"/);
  assert.equal(await (await c.root(0)).isConfigured(), true);
  await m.sql('INSERT INTO app.t VALUES (2)');
  await waitSameData(m, r, 'app.t');
});

test('when status names another master, a new pod replicates from it and not from pod 0', async (t) => {
  const c = await nodeCluster(t, 3);
  const [s0, s1, s2] = [c.servers[0]!, c.servers[1]!, c.servers[2]!];
  // After a failover: pod 1 is the writable master, pod 0 replicates from it.
  await s1.sql('SET GLOBAL read_only = 0');
  await s1.sql("REPLACE INTO sys_operator.status VALUES ('configured', '1')");
  const n0 = await c.root(0);
  await n0.pointAt({ host: s1.host, port: s1.port }, { user: 'sys_replication', password: 'repl-secret-1' });
  await n0.startReplication();
  await n0.markConfigured();
  await c.bootstrap({ masterInStatus: 1 });

  await c.waitCondition(2, 'True');
  const rs = await (await c.root(2)).replicationStatus();
  assert.equal(rs?.masterHost, s1.host);
  await s1.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1), (2), (3)');
  await waitSameData(s1, s2, 'app.t');
  await waitSameData(s1, s0, 'app.t');
});
