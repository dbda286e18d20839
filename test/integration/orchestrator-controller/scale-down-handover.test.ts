// A scale-down that removes the master's pod (docs/switchover.md, "Scale-down"), on three MariaDB
// 10.11 servers, the stand-in and the orchestrator and node controllers (orc-lab.ts): with the
// master on pod 2 and spec.replicas set to 2, the operator asks Orchestrator for a graceful
// takeover to a pod that stays, and pod 2 ends a replica of it. Before the change nothing moved the
// master until its pod was stopped, and then to whichever replica Orchestrator picked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { names } from '../../../src/api/names.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER } from '../mysql-node/node-cluster.ts';
import { fqdn, masters, orcLab } from './orc-lab.ts';

type ClusterEvent = KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } };
const CLUSTER_REF = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const podName = (i: number) => `${CLUSTER}-mysql-${i}`;

test('a scale-down that removes the master hands it to a pod that stays first', async (t) => {
  const lab = await orcLab(t);
  const alias = names.orchestratorAlias(CLUSTER, lab.ns);
  await eventually('pod 0 labelled master', async () => masters(await lab.pods()).join() === podName(0), 60_000);
  // The master onto the highest ordinal, as Orchestrator's own choice may leave it.
  await eventually(
    'Orchestrator to take over to pod 2',
    async () => {
      const r = await lab.orc(`/api/graceful-master-takeover-auto/${alias}/${fqdn(lab.ns, 2)}/3306`);
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      return true;
    },
    60_000,
  );
  await eventually('pod 2 labelled master', async () => masters(await lab.pods()).join() === podName(2), 60_000);
  await eventually(
    'pods 0 and 1 replicate from pod 2 in Orchestrator',
    async () => {
      const r = await lab.orc(`/api/cluster/alias/${alias}`);
      const rows = r.body as { Key: { Hostname: string }; MasterKey: { Hostname: string }; Slave_SQL_Running: boolean }[];
      const fine = rows.filter((i) => i.MasterKey.Hostname === fqdn(lab.ns, 2) && i.Slave_SQL_Running).length;
      if (fine < 2) throw new Error(JSON.stringify(rows.map((i) => [i.Key.Hostname, i.MasterKey.Hostname])));
      return true;
    },
    60_000,
  );

  await lab.client.patch({ ...CLUSTER_REF, namespace: lab.ns, name: CLUSTER }, { spec: { replicas: 2 } }, { type: 'merge' });
  const now = await eventually(
    'the master labelled on a pod that stays',
    async () => {
      const m = masters(await lab.pods());
      if (m.length !== 1 || m[0] === podName(2)) throw new Error(`role=master on ${m.join(', ') || 'no pod'}`);
      return m[0]!;
    },
    60_000,
  );
  assert.ok([podName(0), podName(1)].includes(now));
  const events = (await lab.client.list<ClusterEvent>({ apiVersion: 'v1', kind: 'Event' }, { namespace: lab.ns })).items.filter(
    (e) => e.involvedObject?.name === CLUSTER && e.reason === 'ScaleDownHandover',
  );
  assert.equal(events.length, 1, 'one handover asked');
  assert.match(
    events[0]?.message ?? '',
    new RegExp(`the master ${podName(2)} is at ordinal 2, which spec.replicas 2 removes: .* to ${now}`),
  );
  // The old master replicates from the new one, read-only: the pod can go without a failover.
  const s2 = lab.nc.servers[2]!;
  await eventually(
    'pod 2 a read-only replica of the new master',
    async () => {
      const ro = Number((await s2.sql('SELECT @@global.read_only AS r'))[0]?.r);
      const st = (await s2.sql('SHOW SLAVE STATUS'))[0] as { Slave_IO_Running?: string; Slave_SQL_Running?: string } | undefined;
      if (ro !== 1 || st?.Slave_SQL_Running !== 'Yes') throw new Error(`read_only=${ro}, ${JSON.stringify(st?.Slave_SQL_Running)}`);
      return true;
    },
    60_000,
  );
  await lab.passes(3);
  assert.equal(masters(await lab.pods()).join(), now, 'the master stays where it was handed');
});
