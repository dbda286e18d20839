// Readiness while the operator is down (docs/node-controller.md), on real MariaDB 10.11: a
// configured replica restarted with the init-file clone-and-init writes for its kept data
// directory stays configured and replicates, without anyone running CHANGE MASTER or START
// SLAVE; with the server master.info names read-only (not the current master) or gone, the same
// run resets `configured` as the anchor did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startReplicationPair, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import { confDirFor, configMapDir, podEnv, runCloneAndInit } from './support.ts';

const NOBODY = 'http://127.0.0.1:9';

test('a configured replica restarted with the kept-data init-file resumes replicating and stays configured; with its master read-only or down it is reset', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1), (2)');
  const count = async (s: typeof master) => Number((await s.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n);
  await eventually('the first rows to replicate', async () => (await count(replica)) === 2);
  await (await replica.node()).markConfigured(); // what the operator did before it went down

  // The replica becomes a pod: skip-slave-start as the pod's my.cnf has, and the files
  // clone-and-init writes (identity, init-file) included last.
  const confDir = await confDirFor(t);
  await replica.stop();
  await appendFile(replica.configPath, `skip-slave-start\n!includedir ${confDir}/conf.d\n`);
  const args = [
    `--data-dir=${replica.datadir}`,
    `--config-dir=${confDir}`,
    `--conf-source-dir=${await configMapDir(t)}`,
    `--mysql-port=${replica.port}`,
  ];
  const env = podEnv({ MY_POD_NAME: 'c-mysql-1', SIDECAR_CLONE_REPLICAS_URL: NOBODY, SIDECAR_CLONE_MASTER_URL: NOBODY });

  const run = await runCloneAndInit(args, env);
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /data already exists; keeping it/);
  assert.match(
    run.output,
    new RegExp(`replication resumes at mysqld start and configured is kept.*${master.host.replaceAll('.', '\\.')}:${master.port}`),
  );
  assert.ok(!run.output.includes(TEST_SYSTEM_USERS.replication.password), 'no replication password in the log');
  const initFile = await readFile(join(confDir, 'conf.d/operator-init.sql'), 'utf8');
  assert.equal(initFile.trimEnd().split('\n').at(-1), 'START SLAVE;');
  assert.doesNotMatch(initFile, /'configured'/);

  await master.sql('INSERT INTO app.t VALUES (3), (4)'); // written while the replica is down
  await replica.start();
  const node = await replica.node();
  assert.equal(await node.isConfigured(), true, 'configured kept: the pod stays Ready');
  assert.equal(await node.isReadOnly(), true);
  await eventually('rows written while it was down to arrive', async () => (await count(replica)) === 4);
  await master.sql('INSERT INTO app.t VALUES (5)');
  await eventually('rows written after the restart to arrive', async () => (await count(replica)) === 5);
  const status = await node.replicationStatus();
  assert.equal(status?.ioRunning, true);
  assert.equal(status?.sqlRunning, true);

  // Issue 21: the server master.info names is read-only now (a takeover froze it, or it is an old
  // master back from a restart): not the current master, so no resume behind Orchestrator's back.
  await replica.stop();
  await master.sql('SET GLOBAL read_only = 1');
  const frozen = await runCloneAndInit(args, env);
  assert.equal(frozen.code, 0, frozen.output);
  assert.match(frozen.output, /configured is reset at mysqld start.*is not the current master: it is read-only/);
  assert.doesNotMatch(await readFile(join(confDir, 'conf.d/operator-init.sql'), 'utf8'), /START SLAVE/);
  await master.sql('SET GLOBAL read_only = 0');

  // Master gone: the same data directory, the anchor's behaviour.
  await master.stop();
  const down = await runCloneAndInit(args, env);
  assert.equal(down.code, 0, down.output);
  assert.match(down.output, /configured is reset at mysqld start.*does not answer/);
  const resetFile = await readFile(join(confDir, 'conf.d/operator-init.sql'), 'utf8');
  assert.match(resetFile, /'configured', '0'/);
  assert.doesNotMatch(resetFile, /START SLAVE/);
  await replica.start();
  const again = await replica.node();
  assert.equal(await again.isConfigured(), false);
  const stopped = await again.replicationStatus();
  assert.equal(stopped?.ioRunning, false, 'skip-slave-start: nothing started replication');
});
