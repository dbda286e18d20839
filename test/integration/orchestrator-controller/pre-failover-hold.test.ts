// The PreFailover hold (docs/failover-hook.md "The PreFailover hold") against three real MariaDB
// servers and the Orchestrator stand-in in 3.2.6's recovery order (orc-lab.ts), with the chart's
// DelayMasterPromotionIfSQLThreadNotUpToDate. The replicas fetched the dead master's last commits
// but could not apply them yet: a session holding a table lock keeps their SQL threads waiting.
// 3.2.6 stops replication on every replica right after its PreFailover hooks, and once both threads
// are stopped MariaDB never applies the rest of the relay log (docs/failure-modes.md "A failed
// promotion"): without the hold, the recovery fails or promotes a replica without those commits,
// acknowledged to the client that wrote them. The flavour that ran is MariaDB.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import { gtidCovers } from '../../../src/mysql/gtid-set.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import type { MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, podName, waitSameData } from '../mysql-node/node-cluster.ts';
import { masters, orcLab, watchMasters, type OrcLab } from './orc-lab.ts';

/** The chart's promotion variant (chart/values.yaml). */
const CHART_PROMOTION = { FailMasterPromotionIfSQLThreadNotUpToDate: false, DelayMasterPromotionIfSQLThreadNotUpToDate: true };
const ROWS = 5;

async function events(lab: OrcLab): Promise<Array<{ reason?: string; message?: string; type?: string }>> {
  const list = await lab.client.list<KubeObject & { reason?: string; message?: string; type?: string; involvedObject?: { name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: lab.ns },
  );
  return list.items.filter((e) => e.involvedObject?.name === CLUSTER);
}

/** A root session on `s` holding a read lock on app.t: its SQL thread cannot apply a write to it. */
async function lockTable(t: TestContext, s: MariaDBServer): Promise<() => Promise<void>> {
  const { host, port, user, password } = s.rootParams();
  const session = await mysql.createConnection({ host, port, user, password });
  session.on('error', () => undefined);
  t.after(() => session.destroy());
  await session.query('LOCK TABLES app.t READ');
  return async () => {
    await session.query('UNLOCK TABLES');
    await session.end();
  };
}

/**
 * The lab Ready with app.t on every server; then `ROWS` commits on the master that the replicas in
 * `locked` fetched and could not apply; then the master SIGKILLed. Returns the ids committed and
 * the unlock of each locked replica.
 */
async function killWithRelayLogsPending(t: TestContext, lab: OrcLab, locked: number[]) {
  const [s0, s1, s2] = lab.nc.servers as [MariaDBServer, MariaDBServer, MariaDBServer];
  await eventually('pod 0 labelled master', async () => masters(await lab.pods()).join() === podName(0), 60_000);
  await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (0)');
  await waitSameData(s0, s1, 'app.t');
  await waitSameData(s0, s2, 'app.t');
  const unlock = await Promise.all(locked.map((i) => lockTable(t, lab.nc.servers[i]!)));
  const ids = [0];
  for (let id = 1; id <= ROWS; id++) {
    await s0.sql('INSERT INTO app.t VALUES (?)', [id]);
    ids.push(id);
  }
  const written = String((await s0.sql('SELECT @@global.gtid_binlog_pos AS g'))[0]?.g);
  for (const i of [1, 2]) {
    const n = await lab.nc.root(i);
    await eventually(`${podName(i)} fetched every commit`, async () =>
      gtidCovers((await n.replicationStatus())?.gtidReceived ?? '', written),
    );
  }
  for (const i of locked) {
    const s = await (await lab.nc.root(i)).replicationStatus();
    assert.ok(s?.sqlRunning && !gtidCovers(s.gtidExecuted, written), `${podName(i)} has not applied them`);
  }
  await s0.kill();
  return { ids, unlock };
}

async function promotedWithRows(lab: OrcLab, ids: number[]): Promise<string> {
  const pod = await eventually(
    'role=master on a replica Orchestrator promoted',
    async () => {
      const m = masters(await lab.pods());
      return m.length === 1 && m[0] !== podName(0) ? m[0] : undefined;
    },
    90_000,
  );
  const s = lab.nc.servers[Number(pod!.slice(pod!.lastIndexOf('-') + 1))]!;
  const rows = (await s.sql('SELECT id FROM app.t ORDER BY id')).map((r) => Number(r.id));
  assert.deepEqual(rows, ids, `every acknowledged commit on the promoted ${pod}`);
  return pod!;
}

test('a PreFailover call holds the failover until the replicas applied what they fetched: commits only in relay logs at the kill reach the promoted master', async (t) => {
  const lab = await orcLab(t, {}, { standIn: CHART_PROMOTION });
  const { ids, unlock } = await killWithRelayLogsPending(t, lab, [1, 2]);
  const watch = await watchMasters(lab, t);

  await eventually('the PreFailover call', () => lab.hookCalls.includes('PreFailover'), 60_000);
  // Held: nothing has stopped the replicas, which still have their relay logs to apply.
  for (const i of [1, 2]) {
    const s = await (await lab.nc.root(i)).replicationStatus();
    assert.ok(s?.sqlRunning, `${podName(i)}'s SQL thread still runs while the call is held`);
  }
  for (const u of unlock) await u();

  await promotedWithRows(lab, ids);
  const applied = await eventually('the RelayLogsApplied Event', async () =>
    (await events(lab)).find((e) => e.reason === 'RelayLogsApplied'),
  );
  assert.match(applied.message ?? '', /held [\d.]+ s until .*my-db-mysql-1.* applied what they had fetched/);
  assert.deepEqual(watch.violations, []);
});

test('the hold lets go once a replica applies nothing: it does not stop the failover, the one that applied everything is promoted', async (t) => {
  const lab = await orcLab(t, {}, { standIn: CHART_PROMOTION, hold: { limits: { stallMs: 2000, holdMs: 60_000 } } });
  const { ids } = await killWithRelayLogsPending(t, lab, [2]);
  const pod = await promotedWithRows(lab, ids);
  assert.equal(pod, podName(1));
  const warning = await eventually('the RelayLogsNotApplied Event', async () =>
    (await events(lab)).find((e) => e.reason === 'RelayLogsNotApplied'),
  );
  assert.equal(warning.type, 'Warning');
  assert.match(warning.message ?? '', /let go after [\d.]+ s \(they applied nothing for a while\) with my-db-mysql-2 still applying/);
});
