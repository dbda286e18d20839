// No credential crosses a namespace (issue 23 item 3, docs/credentials.md), on real MariaDB 10.11:
// the operated Secret the cluster controller renders holds no usable topology password, yet the
// init-file the sidecar writes from it lets Orchestrator in; the replication account reads no
// table; the backup tool's own account streams a backup from the local server only.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { operatedSecretData, topologyPasswordForm } from '../../../src/controllers/cluster/render-operated-secret.ts';
import { flavourFromVersionSpec } from '../../../src/mysql/index.ts';
import { loadConfig } from '../../../src/sidecar/config.ts';
import { renderPodFiles } from '../../../src/sidecar/write-pod-files.ts';
import { startMariaDB, startReplicationPair, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const U = TEST_SYSTEM_USERS;
const MARIADB = flavourFromVersionSpec('mariadb-10.11')!;
const TOPOLOGY = { user: 'orchestrator', password: 'Install-Wide-Topology-Password-8c1f2e' };

async function refused(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: Error) => re.test(e.message));
}

/** The init-file `clone-and-init` writes for a pod given `secret` as its environment (envFrom). */
function initFileFor(secret: Record<string, string>): string {
  const cfg = loadConfig(
    { ...secret, MY_NAMESPACE: 'tenant-a', MY_CLUSTER_NAME: 'db', MY_POD_NAME: 'db-mysql-0', MY_MYSQL_VERSION: 'mariadb-10.11' },
    [],
    ['identity', 'version', 'credentials'],
  );
  const files = renderPodFiles(cfg, {
    facts: { statusTableMissing: true, backupGtid: null },
    restoredFromBucket: false,
    resumeReplication: false,
    heartbeatPassword: 'hb-local-1',
    backupToolPassword: 'xb-local-1',
  });
  const initFile = files.find(([path]) => path.endsWith('operator-init.sql'));
  assert.ok(initFile, 'the init-file is among the pod files');
  return initFile[1];
}

test('the tenant Secret holds no usable topology password, and the init-file written from it lets Orchestrator in', async (t) => {
  const form = topologyPasswordForm('mysql-operator-sidecar:latest', MARIADB, { namespace: 'tenant-a', name: 'db' });
  const secret = operatedSecretData({}, TOPOLOGY, () => 'generated-password-1', form);
  for (const [key, value] of Object.entries(secret)) {
    assert.ok(!value.includes(TOPOLOGY.password), `key ${key} holds the topology password`);
  }
  const s = await startMariaDB({ name: 'tenant-secret', initFile: initFileFor(secret), t });
  await s.sql('SHOW SLAVE STATUS; SELECT 1', [], TOPOLOGY);
  // Whatever the Secret holds, none of it logs in as Orchestrator, not even the stored hash.
  for (const value of new Set(Object.values(secret))) {
    await refused(s.sql('SELECT 1', [], { user: TOPOLOGY.user, password: value }), /Access denied/);
  }
});

test('the replication account cannot SELECT application tables, and replicas still replicate with it', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id int primary key, secret varchar(20)); INSERT INTO app.t VALUES (1, "x")');
  await refused(master.sql('SELECT * FROM app.t', [], U.replication), /denied/);
  await refused(master.sql('SELECT * FROM mysql.user', [], U.replication), /denied/);
  await refused(master.sql('SELECT value FROM sys_operator.status', [], U.replication), /denied/);
  await eventually('the row reached the replica', async () => (await replica.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n === 1);
});

async function mariabackup(
  s: MariaDBServer,
  user: { user: string; password: string },
  host: string,
): Promise<{ code: number | null; stderr: string }> {
  // A test's own command line (no pod): the password may be on it here.
  const child = spawn(
    'mariabackup',
    [
      '--backup',
      '--stream=xbstream',
      '--slave-info',
      `--host=${host}`,
      `--port=${s.port}`,
      `--user=${user.user}`,
      `--password=${user.password}`,
      `--target-dir=${s.dir}/backup-${Date.now()}`,
      `--datadir=${s.datadir}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stderr };
}

test("the backup tool's own account streams a backup of the local server, and nothing more", async (t) => {
  const s = await startMariaDB({ name: 'backup-tool', systemUsers: true, t });
  await s.sql('SET GLOBAL read_only = 0; CREATE DATABASE app; CREATE TABLE app.t (id int primary key); INSERT INTO app.t VALUES (1)');
  const tool = U.backupTool;
  assert.ok(tool, 'the system users have a backup tool account');
  const r = await mariabackup(s, tool, s.host);
  assert.equal(r.code, 0, r.stderr.split('\n').slice(-15).join('\n'));
  assert.match(r.stderr, /completed OK!/);
  await refused(s.sql('SELECT * FROM app.t', [], tool), /denied/);
  // The account is @'127.0.0.1': the harness's clients come from there; its grants say so.
  const grants = await s.sql(`SHOW GRANTS FOR '${tool.user}'@'127.0.0.1'`);
  assert.doesNotMatch(JSON.stringify(grants), /\bSELECT\b|SUPER|REPLICATION SLAVE|ALL PRIVILEGES|'%'/);
  assert.equal((await s.sql(`SELECT COUNT(*) AS n FROM mysql.user WHERE User = '${tool.user}' AND Host <> '127.0.0.1'`))[0]?.n, 0);
});
