// End to end on the composed sandbox: a MysqlCluster spec change (a mysqlConf value) rolls the
// pods one at a time, replicas first and the master last, whose preStop has Orchestrator hand the
// master over before mysqld stops (docs/switchover.md), while a client writes through
// <c>-mysql-master every 100 ms. The failed writes and the longest gap between acknowledged
// writes are printed (issue 13's goal: gap ≤ 2 s), never asserted; no acknowledged write may be
// lost. Flavour: MariaDB (the local mariadbd).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_GROUP_VERSION, KIND_MYSQL_CLUSTER, ROLE } from '../../src/api/constants.ts';
import { waitForClusterReady } from '../../sandbox/cluster-view.ts';
import { until } from '../../sandbox/index.ts';
import { watchMasters } from '../support/master-watch.ts';
import {
  assertWritesOnEveryPod,
  printSandboxOnFailure,
  sandboxSkip,
  sqlOnPod,
  startWritingLab,
  writerThroughMaster,
  type WritingLab,
} from '../support/sandbox.ts';
import { failureSummary } from '../support/writing-client.ts';

const READY_TIMEOUT_MS = 600_000;
const MAX_CONNECTIONS = 321;

describe('a rolling update of the example MariaDB cluster on the sandbox', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-switchover-'));
  let lab: WritingLab;

  before(async () => {
    lab = await startWritingLab(workDir, 3, READY_TIMEOUT_MS);
  });
  after(() => lab?.sb.stop());
  printSandboxOnFailure(() => lab?.sb);

  it('rolls a mysqlConf change one pod at a time, replicas first, the master last after a graceful takeover, losing no acknowledged write', async (t) => {
    const { sb, c } = lab;
    let view = lab.view;
    const oldMaster = view.master!;
    const watch = await watchMasters(sb.client, c.namespace, c.name, t);
    const writer = await writerThroughMaster(lab, 1);
    // Root too: the account a fence must bind as well (on MariaDB it holds every privilege).
    const rootWriter = await writerThroughMaster(lab, 500_000, 'root');
    writer.start();
    rootWriter.start();
    let rolledIn = 0;
    try {
      await until('writes acknowledged through the master Service', async () => writer.acked()[0] ?? rootWriter.acked()[0], 60_000);
      const began = Date.now();
      await sb.client.patch(
        { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER, namespace: c.namespace, name: c.name },
        { spec: { mysqlConf: { max_connections: MAX_CONNECTIONS } } },
      );
      await until(
        `every server with max_connections ${MAX_CONNECTIONS}`,
        async () => {
          for (const p of view.pods) {
            const rows = await sqlOnPod(sb, c, p.name, 'SELECT @@max_connections AS m');
            if (Number(rows[0]?.m) !== MAX_CONNECTIONS) return undefined;
          }
          return true;
        },
        READY_TIMEOUT_MS,
      );
      view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: READY_TIMEOUT_MS });
      rolledIn = Date.now() - began;
    } finally {
      await Promise.all([writer.stop(), rootWriter.stop()]);
    }
    const timeline = watch.deletions.map((d) => `${d.pod} (${d.role ?? 'no role'})`).join(' → ');
    // The pods that carried role=master in turn; the label off and back on one pod is no takeover.
    const masters = watch.masterChanges.filter((m, i, all) => m !== '' && m !== all.slice(0, i).findLast((x) => x !== ''));
    console.log(
      `rolled in ${(rolledIn / 1000).toFixed(1)} s: ${timeline}; role=master: ${watch.masterChanges.map((m) => m || '(none)').join(' → ')}`,
    );
    console.log(
      `writes: ${writer.acked().length} acknowledged, ${writer.failed().length} failed; longest gap between acknowledged writes ${(writer.longestGap() / 1000).toFixed(2)} s (goal ≤ 2 s)`,
    );
    console.log(
      `root writes: ${rootWriter.acked().length} acknowledged, ${rootWriter.failed().length} failed; longest gap ${(rootWriter.longestGap() / 1000).toFixed(2)} s`,
    );
    // Where the failures came from: no endpoint behind the Service (ECONNRESET from the proxy), the
    // writer's own connect timing out, a server refusing the write (read-only).
    const causes = Map.groupBy(writer.failed(), (r) => (r.error ?? '').replace(/\d+\.\d+\.\d+\.\d+:\d+/, '<service>').slice(0, 60));
    console.log(`failed writes by error: ${[...causes].map(([e, rs]) => `${rs.length} × ${e}`).join('; ') || 'none'}`);
    const gap = writer.longestGapSpan();
    const stopped = watch.deletions.find((d) => d.pod === oldMaster)?.at;
    if (gap && stopped)
      console.log(
        `longest gap from ${((gap.from - stopped) / 1000).toFixed(2)} s to ${((gap.to - stopped) / 1000).toFixed(2)} s after the master's pod was deleted`,
      );
    if (gap) console.log(`why writes failed in the longest gap: ${failureSummary(writer, gap.from, gap.to)}`);

    assert.deepEqual(watch.deletions.map((d) => d.pod).sort(), view.pods.map((p) => p.name).sort(), 'every pod restarted once');
    assert.deepEqual(
      watch.deletions.map((d) => d.role),
      [ROLE.replica, ROLE.replica, ROLE.master],
      `replicas first, the master last: ${timeline}`,
    );
    assert.equal(watch.deletions.at(-1)?.pod, oldMaster);
    assert.deepEqual(masters, [oldMaster, view.master], `one takeover: ${watch.masterChanges.join(' → ')}`);
    assert.notEqual(view.master, oldMaster, 'the master moved before its pod stopped');
    assert.deepEqual(watch.violations, [], 'never two pods with role=master');

    await assertWritesOnEveryPod(
      sb,
      c,
      view.pods.map((p) => p.name),
      view.master!,
      lab.table,
      [...writer.acked(), ...rootWriter.acked()],
    );
  });
});
