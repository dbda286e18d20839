// Semi-sync through the orchestrator controller (docs/semi-sync.md), on the lab of
// orchestrator-controller.test.ts: three real MariaDB servers, the Orchestrator stand-in, the test
// API server. The owner opts an existing cluster in (spec.replication.mode); the controller sets
// the master side on the master and the replica side on the replicas; with no replica
// acknowledging, a commit waits and the cluster says so (condition, Event, metric); once a
// replica acknowledges, the commit returns and the condition clears.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLUSTER_CONDITION, CLUSTER_REASONS } from '../../../src/api/constants.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER } from '../mysql-node/node-cluster.ts';
import { orcLab, type OrcLab } from './orc-lab.ts';

const CLUSTER_REF = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };

async function condition(lab: OrcLab) {
  return (await lab.cluster()).status?.conditions?.find((c) => c.type === CLUSTER_CONDITION.semiSyncWaiting);
}

function waitReason(lab: OrcLab, status: string, reason: string) {
  return eventually(
    `SemiSyncWaiting=${status} (${reason})`,
    async () => {
      const c = await condition(lab);
      if (c?.status === status && c.reason === reason) return c;
      throw new Error(`last: ${JSON.stringify(c)}`);
    },
    60_000,
  );
}

async function eventsOf(lab: OrcLab, reason: string): Promise<string[]> {
  const list = await lab.client.list<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: lab.ns },
  );
  return list.items.filter((e) => e.involvedObject?.name === CLUSTER && e.reason === reason).map((e) => e.message ?? '');
}

test('semi-sync follows the role; a master with no acknowledging replica makes commits wait and the cluster says so', async (t) => {
  const lab = await orcLab(t);
  const [s0, s1, s2] = lab.nc.servers;
  await eventually(
    'pod 0 labelled master',
    async () => (await lab.pods()).some((p) => p.metadata?.name?.endsWith('-0') && p.metadata.labels?.role === 'master'),
    60_000,
  );
  await lab.passes(2);
  assert.equal(await condition(lab), undefined, 'a cluster without lossless defaults nor spec.replication: semi-sync is not managed');
  assert.equal(String((await s0!.sql('SELECT @@rpl_semi_sync_master_enabled AS v'))[0]!.v), '0', 'and its servers were not touched');

  await lab.client.patch(
    { ...CLUSTER_REF, namespace: lab.ns, name: CLUSTER },
    { spec: { replication: { mode: 'semiSync' } } },
    { type: 'merge' },
  );
  await waitReason(lab, 'False', CLUSTER_REASONS.semiSyncAcknowledged);
  const on = async (s: typeof s0, v: string) => String((await s!.sql(`SELECT @@${v} AS v`))[0]!.v);
  assert.deepEqual(
    [
      await on(s0, 'rpl_semi_sync_master_enabled'),
      await on(s0, 'rpl_semi_sync_slave_enabled'),
      await on(s0, 'rpl_semi_sync_master_wait_point'),
    ],
    ['1', '0', 'AFTER_SYNC'],
  );
  for (const s of [s1, s2])
    assert.deepEqual([await on(s, 'rpl_semi_sync_master_enabled'), await on(s, 'rpl_semi_sync_slave_enabled')], ['0', '1']);
  assert.ok((await eventsOf(lab, CLUSTER_REASONS.semiSyncConfigured)).length >= 3, 'an Event per server configured');

  await s0!.sql('CREATE DATABASE IF NOT EXISTS app; CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY)');
  for (const s of [s1, s2]) await s!.sql('STOP SLAVE IO_THREAD');
  let returned = false;
  const commit = s0!.sql('INSERT INTO app.t VALUES (1)').then(() => (returned = true));
  const waiting = await waitReason(lab, 'True', CLUSTER_REASONS.semiSyncNoAck);
  assert.match(waiting.message ?? '', /price of losing nothing/);
  assert.equal(returned, false, 'the commit waits while no replica acknowledges');
  await eventually('a Warning Event SemiSyncNoAck', async () => (await eventsOf(lab, CLUSTER_REASONS.semiSyncNoAck)).length > 0);
  await eventually('the waiting gauge', async () => /mysql_operator_semisync_master_waiting\{[^}]*\} 1/.test(await lab.metrics()));

  await s1!.sql('START SLAVE IO_THREAD');
  await commit;
  await waitReason(lab, 'False', CLUSTER_REASONS.semiSyncAcknowledged);
  await eventually('the gauge back to 0', async () => /mysql_operator_semisync_master_waiting\{[^}]*\} 0/.test(await lab.metrics()));
  await s2!.sql('START SLAVE IO_THREAD');
});
