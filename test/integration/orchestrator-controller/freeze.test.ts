// Issue 21, "never undo a freeze", on three MariaDB 10.11 servers, the stand-in and the orchestrator
// and node controllers in one manager (orc-lab.ts). A master frozen while it ran (read_only=1 set on
// the running, configured master, as 3.2.6's graceful takeover does before it waits for its
// designated replica) stays read-only: no promotion was reported, so the operator leaves it and says
// so (MasterFrozen). The same master restarted (the init-file froze it at its start) is made
// writable again: that is bootstrap. Before the change the frozen master was made writable at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { orchestratorClient } from '../../../src/orchestrator/index.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import type { MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER } from '../mysql-node/node-cluster.ts';
import { fqdn, orcLab, type OrcLab } from './orc-lab.ts';

type ClusterEvent = KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } };

async function events(lab: OrcLab, reason: string): Promise<ClusterEvent[]> {
  const list = await lab.client.list<ClusterEvent>({ apiVersion: 'v1', kind: 'Event' }, { namespace: lab.ns });
  return list.items.filter((e) => e.involvedObject?.name === CLUSTER && e.reason === reason);
}

async function readOnly(s: MariaDBServer): Promise<boolean> {
  return Number((await s.sql('SELECT @@global.read_only AS r'))[0]?.r) === 1;
}

test('a master frozen while it ran stays read-only (MasterFrozen); restarted, it is made writable again', async (t) => {
  const lab = await orcLab(t);
  const s0 = lab.nc.servers[0]!;
  await eventually('pod 0 made writable at bootstrap', async () => !(await readOnly(s0)), 60_000);
  // Configured only once writable: until then a read-only pod 0 is still "read-only since its start".
  await lab.nc.waitCondition(0, 'True');
  const madeWritable = async () => (await events(lab, 'ReadOnlyChanged')).filter((e) => e.message?.includes('made writable')).length;
  const writableBefore = await madeWritable();

  await s0.sql('SET GLOBAL read_only = 1');
  const frozen = await eventually(
    'a MasterFrozen Event',
    async () => {
      const e = (await events(lab, 'MasterFrozen'))[0];
      if (e) return e;
      const all = (await lab.client.list<ClusterEvent>({ apiVersion: 'v1', kind: 'Event' }, { namespace: lab.ns })).items;
      throw new Error(`read_only=${await readOnly(s0)}; events: ${all.map((x) => `${x.reason}: ${x.message}`).join(' | ')}`);
    },
    60_000,
  );
  assert.match(frozen.message ?? '', /my-db-mysql-0 is Orchestrator's master and read-only, but not since its start/);
  await lab.passes(3);
  assert.equal(await readOnly(s0), true, 'the freeze is not undone');
  assert.equal(await madeWritable(), writableBefore, 'no set-writeable since the freeze');

  // mysqld restarted in place: read-only again by its init-file, configured reset: bootstrap. A
  // downtime keeps the stand-in from failing the stopped master over meanwhile.
  const orchestrator = orchestratorClient({ baseUrl: `${lab.standIn.url}/api` });
  const key = { host: fqdn(lab.ns, 0), port: 3306 };
  await orchestrator.beginDowntime(key, { owner: 'test', reason: 'restart in place', seconds: 600 });
  await s0.stop();
  await s0.start();
  await lab.nc.markStarted(0);
  await eventually('pod 0 made writable after its start', async () => !(await readOnly(s0)), 60_000);
  await orchestrator.endDowntime(key);
});
