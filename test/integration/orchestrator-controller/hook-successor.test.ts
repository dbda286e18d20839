// The failover hook's fast path (docs/failover-hook.md "Successor fast path") against the test API
// server (or TEST_KUBECONFIG), three real MariaDB servers and the Orchestrator stand-in
// (orc-lab.ts). The test plays a promotion Orchestrator's API does not show: with the controller
// cut off from Orchestrator (a full pass relabels nothing then), only the fast path can move the
// label, and it must do so only when the servers prove the hook's successor is the one master.
// The node controller is left out: it would heal the test's promotion before the hook call (make
// the detached pod 1 read-only and repoint it at pod 0, the master its labels name).
// The flavour that ran is MariaDB.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { LABEL_HEALTHY, LABEL_ROLE } from '../../../src/api/constants.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, podName } from '../mysql-node/node-cluster.ts';
import { masters, orcLab, watchMasters, type OrcLab } from './orc-lab.ts';

async function labels(lab: OrcLab): Promise<Record<string, string>> {
  return Object.fromEntries(
    (await lab.pods()).map((p) => [p.metadata?.name ?? '', `${p.metadata?.labels?.[LABEL_ROLE]}/${p.metadata?.labels?.[LABEL_HEALTHY]}`]),
  );
}

async function events(lab: OrcLab): Promise<Array<{ reason?: string; message?: string }>> {
  const list = await lab.client.list<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: lab.ns },
  );
  return list.items.filter((e) => e.involvedObject?.name === CLUSTER);
}

test("a failover hook's successor carries role=master as soon as the servers prove the promotion, and only then", async (t) => {
  const lab = await orcLab(t, {}, { nodeController: false });
  await eventually(
    'pod 0 labelled master, the others healthy replicas',
    async () => {
      const l = await labels(lab);
      return l[podName(0)] === 'master/yes' && l[podName(1)] === 'replica/yes' && l[podName(2)] === 'replica/yes';
    },
    60_000,
  );
  const watch = await watchMasters(lab, t);
  await lab.orchestrator.cut();
  await lab.passes(1);

  // Pod 1 promoted behind Orchestrator's back: replicating from no one, writable.
  const n1 = await lab.nc.root(1);
  await n1.stopReplication();
  await n1.resetReplication();
  await n1.setReadOnly(false);

  await t.test('while the old master is writable, the successor a Post* call names is not labelled', async () => {
    await lab.callHook('PostMasterFailover', 0, 1);
    await lab.passes(2);
    assert.deepEqual(masters(await lab.pods()), [podName(0)]);
  });

  await t.test(
    'once the old master is read-only, the successor is labelled master, the old master unlabelled first, and its client sessions are killed',
    async () => {
      // A client of the old master, connected before the demotion, in a transaction (root: not a system user).
      const { host, port, user, password } = lab.nc.servers[0]!.rootParams();
      const client = await mysql.createConnection({ host, port, user, password });
      client.on('error', () => undefined);
      t.after(() => client.destroy());
      await client.query('BEGIN');
      await client.query('SELECT 1');
      await (await lab.nc.root(0)).setReadOnly(true);
      await lab.callHook('PostMasterFailover', 0, 1);
      await eventually('role=master on pod 1', async () => masters(await lab.pods()).join() === podName(1), 30_000);
      assert.equal((await labels(lab))[podName(0)], 'replica/no');
      // Never both: the watch saw the label leave pod 0 before it reached pod 1.
      assert.deepEqual(watch.masterChanges, [podName(0), '', podName(1)]);
      const labelled = (await events(lab)).filter((e) => e.reason === 'MasterLabelled').at(-1);
      assert.match(
        labelled?.message ?? '',
        new RegExp(`role=master on ${podName(1)} \\(was ${podName(0)}\\): named by the PostMasterFailover hook`),
      );
      // The fence (docs/fencing.md): the session is gone, and the Event says whose.
      await eventually('the client session of the old master killed', async () =>
        (await events(lab)).some((e) => e.reason === 'ClientSessionsKilled'),
      );
      const killed = (await events(lab)).find((e) => e.reason === 'ClientSessionsKilled');
      assert.match(killed?.message ?? '', new RegExp(`of the demoted ${podName(0)} killed \\(accounts root\\)`));
      await assert.rejects(client.query('SELECT 1'));
    },
  );

  await t.test("once the call is stale, Orchestrator's view counts again", async () => {
    // The stand-in still names pod 0 master: the controller makes it writable again and moves the label back.
    await lab.orchestrator.restore();
    await eventually('role=master back on pod 0', async () => masters(await lab.pods()).join() === podName(0), 60_000);
    assert.deepEqual(watch.violations, []);
  });
});
