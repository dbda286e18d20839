// Errant transactions, every pass (issue 21), on real MariaDB 10.11 servers with the Orchestrator
// stand-in and both controllers (orc-lab.ts): a replica written to directly, and an old master
// holding a write the new master lacks that is started towards the new master as its init-file's
// START SLAVE or Orchestrator would, are compared with the master by the orchestrator controller's
// pass: node condition ErrantTransactions=True, healthy=no (out of the read Services), a Warning
// Event naming the GTID, role=master never moved; the node controller does not mark the old master
// configured. Neither server runs gtid_strict_mode (the chart's my.cnf does not set it), so
// replication itself does not stop on the fork.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LABEL_HEALTHY, LABEL_ROLE } from '../../../src/api/constants.ts';
import { verifiedSinceStart } from '../../../src/controllers/mysql-node/decide-condition.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import type { PodObject } from '../../../src/topology/index.ts';
import type { MariaDBServer } from '../../support/mariadb.ts';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, podName, waitSameData } from '../mysql-node/node-cluster.ts';
import { fqdn, orcLab, watchMasters, type OrcLab } from './orc-lab.ts';

function labelsOf(pods: readonly PodObject[]): Record<string, string> {
  return Object.fromEntries(
    pods.map((p) => [p.metadata?.name ?? '', `${p.metadata?.labels?.[LABEL_ROLE]}/${p.metadata?.labels?.[LABEL_HEALTHY]}`]),
  );
}

async function errantCondition(lab: OrcLab, i: number): Promise<string | undefined> {
  const nodes = (await lab.cluster()).status?.nodes;
  return nodes?.find((n) => n.name === fqdn(lab.ns, i))?.conditions?.find((c) => c.type === 'ErrantTransactions')?.status;
}

async function clusterEvents(lab: OrcLab, reason: string): Promise<string[]> {
  const list = await lab.client.list<KubeObject & { reason?: string; message?: string; type?: string; involvedObject?: { name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: lab.ns },
  );
  return list.items
    .filter((e) => e.involvedObject?.name === CLUSTER && e.reason === reason && e.type === 'Warning')
    .map((e) => e.message ?? '');
}

/** The entry of the server's gtid_binlog_state written by the server itself. */
async function ownGtid(s: MariaDBServer): Promise<string> {
  const row = (await s.sql('SELECT @@server_id AS id, @@global.gtid_binlog_state AS state'))[0]!;
  const own = String(row.state)
    .split(',')
    .find((g) => g.split('-')[1] === String(row.id));
  assert.ok(own, `a GTID of server ${row.id} in ${row.state}`);
  return own;
}

async function settledLab(t: Parameters<typeof orcLab>[0]): Promise<OrcLab> {
  const lab = await orcLab(t);
  await eventually(
    'labels',
    async () => {
      assert.deepEqual(labelsOf(await lab.pods()), {
        [podName(0)]: 'master/yes',
        [podName(1)]: 'replica/yes',
        [podName(2)]: 'replica/yes',
      });
      return true;
    },
    60_000,
  );
  await eventually('every pod verified by the node controller', async () => (await lab.pods()).every(verifiedSinceStart));
  return lab;
}

// One lab at a time: six mariadbd starting together missed the 30 s start deadline on the loaded machine.
describe('errant transactions', { concurrency: false }, () => {
  test('a replica written to directly (sql_log_bin=1) is ErrantTransactions and healthy=no; the others stay healthy and role=master stays', async (t) => {
    const lab = await settledLab(t);
    const watch = await watchMasters(lab, t);
    const [s0, , s2] = lab.nc.servers as [MariaDBServer, MariaDBServer, MariaDBServer];
    await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
    await waitSameData(s0, s2, 'app.t');
    await eventually('every node compared clean', async () =>
      (await Promise.all([0, 1, 2].map((i) => errantCondition(lab, i)))).every((c) => c === 'False'),
    );

    // Root bypasses read_only on MariaDB 10.11 (READ ONLY ADMIN): the write lands, binlogged with pod 2's server_id.
    await s2.sql('SET SESSION sql_log_bin = 1; INSERT INTO app.t VALUES (100)');
    const errant = await ownGtid(s2);
    // The master goes on writing: its domain position passes the replica's own sequence number.
    await s0.sql('INSERT INTO app.t VALUES (2), (3)');
    await s0.sql('INSERT INTO app.t VALUES (4)');

    await eventually(
      `${podName(2)} ErrantTransactions and healthy=no`,
      async () => {
        assert.equal(await errantCondition(lab, 2), 'True');
        assert.equal(labelsOf(await lab.pods())[podName(2)], 'replica/no');
        return true;
      },
      60_000,
    );
    await eventually('a Warning Event names the errant GTID', async () =>
      (await clusterEvents(lab, 'ErrantTransactions')).some((m) =>
        m.includes(`${podName(2)} holds transactions the master ${podName(0)} lacks: ${errant}`),
      ),
    );
    await lab.passes(2);
    assert.deepEqual(labelsOf(await lab.pods()), { [podName(0)]: 'master/yes', [podName(1)]: 'replica/yes', [podName(2)]: 'replica/no' });
    assert.deepEqual([await errantCondition(lab, 0), await errantCondition(lab, 1)], ['False', 'False']);
    // Still replicating: without gtid_strict_mode nothing else would have told.
    assert.equal((await (await lab.nc.root(2)).replicationStatus())?.sqlRunning, true);
    assert.deepEqual(watch.masterChanges, [podName(0)], 'role=master stayed on pod 0');
    assert.deepEqual(watch.violations, []);
    assert.equal((await clusterEvents(lab, 'ErrantTransactions')).length, 1, 'one Event, not one per pass');
  });

  test('an old master holding a write the new master lacks, started towards the new master, is not marked configured and is ErrantTransactions', async (t) => {
    const lab = await settledLab(t);
    const [s0, s1, s2] = lab.nc.servers as [MariaDBServer, MariaDBServer, MariaDBServer];
    await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
    await waitSameData(s0, s1, 'app.t');
    await waitSameData(s0, s2, 'app.t');
    for (const r of [s1, s2]) await r.sql('STOP SLAVE IO_THREAD');
    await s0.sql('INSERT INTO app.t VALUES (2)');
    const errant = await ownGtid(s0);
    await s0.kill();
    const promoted = await eventually(
      'Orchestrator to promote a replica',
      async () => {
        const h = (await lab.orc(`/api/master/${CLUSTER}.${lab.ns}`)).body?.Key?.Hostname as string | undefined;
        return h !== undefined && h !== fqdn(lab.ns, 0) ? h.split('.')[0] : undefined;
      },
      60_000,
    );
    await eventually(`role=master on ${promoted}`, async () => labelsOf(await lab.pods())[promoted] === 'master/yes', 60_000);
    const watch = await watchMasters(lab, t);
    const newMaster = lab.nc.servers[Number(promoted.slice(promoted.lastIndexOf('-') + 1))]!;
    await newMaster.sql('INSERT INTO app.t VALUES (10), (11)');

    // What a restarted demoted master's init-file (START SLAVE on its master.info) or Orchestrator's
    // repoint does: replicate from the new master from its replica position. Without
    // gtid_strict_mode it replicates, and its write 2 stays, a fork nobody would see.
    await s0.start();
    const root = await lab.nc.root(0);
    await root.pointAt({ host: newMaster.host, port: newMaster.port }, TEST_SYSTEM_USERS.replication);
    await root.startReplication();
    await lab.nc.markStarted(0);

    const refused = await lab.nc.waitCondition(0, 'False', /^ErrantTransactions: /);
    assert.match(refused.message ?? '', new RegExp(`lacks: ${errant};`));
    await eventually(
      `${podName(0)} ErrantTransactions and healthy=no`,
      async () => {
        assert.equal(await errantCondition(lab, 0), 'True');
        assert.equal(labelsOf(await lab.pods())[podName(0)], 'replica/no');
        return true;
      },
      60_000,
    );
    await eventually('a Warning Event names the errant GTID', async () =>
      (await clusterEvents(lab, 'ErrantTransactions')).some((m) =>
        m.includes(`${podName(0)} holds transactions the master ${promoted} lacks: ${errant}`),
      ),
    );
    await lab.nodePasses(2);
    assert.equal(await root.isConfigured(), false, 'not marked configured');
    assert.equal(labelsOf(await lab.pods())[promoted], 'master/yes');
    assert.deepEqual(watch.masterChanges, [promoted], `role=master stayed on ${promoted}`);
    assert.deepEqual(watch.violations, []);
  });
});
