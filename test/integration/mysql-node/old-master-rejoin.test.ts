// Issue 12, item 4: the old master comes back safely. Three MariaDB 10.11 servers stand in for
// the pods, the Orchestrator stand-in watches them and fails over for real when the master is
// SIGKILLed; the node controller (a child process) is what brings the old master back.
// The test writes the new master into status.nodes (Master=True) as the orchestrator controller
// does, and makes the first master writable as that controller does: it is not running here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { watchWithStandIn } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, nodeCluster, waitSameData, type NodeCluster } from './node-cluster.ts';

/** A configured 3-node cluster with data, the stand-in watching it, then the master SIGKILLed and replaced. */
async function failedOver(t: Parameters<typeof nodeCluster>[0], opts: { stopOperator: boolean }) {
  const c = await nodeCluster(t, 3);
  const [s0, s1, s2] = [c.servers[0]!, c.servers[1]!, c.servers[2]!];
  const op = await c.bootstrap();
  for (const i of [0, 1, 2]) await c.waitCondition(i, 'True');
  await s0.sql('SET GLOBAL read_only = 0');
  await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1), (2)');
  await waitSameData(s0, s1, 'app.t');
  await waitSameData(s0, s2, 'app.t');
  const alias = `${CLUSTER}.${c.ns}`;
  const lab = await watchWithStandIn(t, c.servers, alias);
  if (opts.stopOperator) await op.stop();

  await s0.kill();
  const promoted = await eventually(
    'the stand-in to promote a replica',
    async () => {
      const host = (await lab.get(`/api/master/${alias}`)).body?.Key?.Hostname;
      const i = c.servers.findIndex((s) => s.host === host);
      return i > 0 ? i : undefined;
    },
    60_000,
  );
  const m = c.servers[promoted]!;
  await c.setMasterInStatus(promoted);
  // More writes on the new master than the old one could add: sequence numbers alone would hide an errant write.
  await m.sql('INSERT INTO app.t VALUES (3), (4)');
  await m.sql('INSERT INTO app.t VALUES (5)');
  return { c, old: s0, m, promoted };
}

async function events(c: NodeCluster, reason: string): Promise<string[]> {
  const list = await c.client.list<KubeObject & { reason?: string; message?: string }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: c.ns },
  );
  return list.items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
}

test('a SIGKILLed master restarted after a failover starts read-only, rejoins as a replica of the new master and replicates', async (t) => {
  const { c, old, m } = await failedOver(t, { stopOperator: false });
  await old.start();
  // The init-file ran before any client: no write can reach the old master.
  assert.equal(await (await c.root(0)).isReadOnly(), true);
  await c.markStarted(0);

  await eventually(
    'the old master to replicate from the new one',
    async () => {
      const rs = await (await c.root(0)).replicationStatus();
      return rs?.masterHost === m.host && rs.ioRunning && rs.sqlRunning;
    },
    60_000,
  );
  await waitSameData(m, old, 'app.t');
  await m.sql('INSERT INTO app.t VALUES (6)');
  await waitSameData(m, old, 'app.t');
  await c.waitCondition(0, 'True');
  assert.equal(await (await c.root(0)).isReadOnly(), true);
  assert.equal(await (await c.root(0)).isConfigured(), true);
});

test('an old master holding a write the new master lacks is not rejoined: it stays read-only, and the condition and Event name the GTID', async (t) => {
  // The operator is down while the old master comes back, so the errant write lands first.
  const { c, old, m } = await failedOver(t, { stopOperator: true });
  await old.start();
  // root holds READ_ONLY ADMIN: a write read_only does not stop, as an admin's by hand would be.
  await old.sql('INSERT INTO app.t VALUES (100)');
  const errant = String((await old.sql('SELECT @@global.gtid_binlog_pos AS g'))[0]?.g);
  assert.match(errant, /^0-100-\d+$/);
  await c.markStarted(0);
  const op = c.startOperator();
  t.after(() => op.stop());

  const cond = await c.waitCondition(0, 'False', /^ErrantTransactions: /);
  assert.match(cond.message ?? '', new RegExp(`lacks: ${errant};`));
  // The Event is posted after the condition is written, not awaited by the pass: wait for it.
  await eventually('an Event that names the GTID', async () => (await events(c, 'ErrantTransactions')).some((msg) => msg.includes(errant)));
  const n0 = await c.root(0);
  assert.equal(await n0.replicationStatus(), null, 'not made a replica');
  assert.equal(await n0.isReadOnly(), true);
  assert.equal(await n0.isConfigured(), false, 'not Ready: the readiness probe keeps it out of the Services');
  // The new master never saw it.
  assert.equal((await m.sql('SELECT COUNT(*) AS n FROM app.t WHERE id = 100'))[0]?.n, 0);
});
