// End to end on the composed sandbox: the master's mysqld SIGKILLed while a client writes through
// <c>-mysql-master every 100 ms. Orchestrator (the chart's, with its defaults) promotes a replica,
// the operator moves role=master, the Service follows, the old master comes back as a replica, and
// no acknowledged write is lost; users and grants made with MysqlUser/MysqlDatabase hold on the new
// master and later changes apply there. Several failovers in a row on one sandbox; the time from
// the kill to the first write accepted through the master Service is printed for each (issue 13's
// goal: median ≤ 3 s, max ≤ 4 s), never asserted. Flavour: MariaDB (the local mariadbd).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_GROUP_VERSION, KIND_MYSQL_USER, NODE_REASONS, ORCHESTRATOR_REASONS, PORT, ROLE } from '../../src/api/constants.ts';
import { names, podFqdn } from '../../src/api/names.ts';
import { clusterView, waitForClusterReady, type ClusterView } from '../../sandbox/cluster-view.ts';
import { until, type Sandbox } from '../../sandbox/index.ts';
import { watchMasters, type MasterWatch } from '../support/master-watch.ts';
import {
  assertWritesOnEveryPod,
  killMysqld,
  printSandboxOnFailure,
  sandboxOrchestrator,
  sandboxSkip,
  sqlOnPod,
  startWritingLab,
  writerThroughMaster,
  type ExampleCluster,
  type ShopUser,
  type WritingLab,
} from '../support/sandbox.ts';
import { failureSummary, type WritingClient } from '../support/writing-client.ts';

// Three: a third failover within minutes needs the old masters of the first two as candidates,
// which Orchestrator downtimed as lost-in-recovery; the operator ends that downtime once each is a
// healthy replica again (docs/orchestrator-controller.md, decide-downtime.ts).
const RUNS = Number(process.env.E2E_FAILOVER_RUNS ?? 3);
const READY_TIMEOUT_MS = 600_000;

describe('failover of the example MariaDB cluster on the sandbox', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-failover-'));
  let sb: Sandbox;
  let c: ExampleCluster;
  let view: ClusterView;
  let watch: MasterWatch;
  const recoveryMs: number[] = [];
  const inPlaceMs: number[] = [];
  const errantRuns: number[] = [];
  let shop: ShopUser;
  let lab: WritingLab;
  const cleanups: (() => void)[] = [];

  before(async () => {
    lab = await startWritingLab(workDir, 3, READY_TIMEOUT_MS);
    ({ sb, c, view, shop } = lab);
    watch = await watchMasters(sb.client, c.namespace, c.name, { after: (fn: () => void) => cleanups.push(fn) });
  });
  after(async () => {
    for (const fn of cleanups) fn();
    await sb?.stop();
  });
  printSandboxOnFailure(() => sb);

  const grantsOn = async (pod: string): Promise<string[]> =>
    (await sqlOnPod(sb, c, pod, `SHOW GRANTS FOR '${shop.user}'@'%'`)).map((r) => String(Object.values(r)[0])).sort();

  it('provisions the example MysqlUser on the master', async () => {
    const grants = await grantsOn(view.master!);
    assert.ok(
      grants.some((x) => /GRANT SELECT, INSERT, UPDATE, DELETE ON `shop`\.\*/.test(x)),
      grants.join('\n'),
    );
  });

  /** Kills the master's mysqld; resolves once writes through the master Service are accepted again. */
  async function killMaster(
    writer: WritingClient,
    what: string,
  ): Promise<{ killed: string; killedAt: number; ms: number; master: string | undefined }> {
    const killed = view.master!;
    const changes = watch.masterChanges.length;
    const killedAt = await killMysqld(sb, c.namespace, killed);
    const first = await until(
      'a write accepted through the master Service after the kill',
      async () => writer.firstAckedAfter(killedAt),
      120_000,
    );
    const ms = first.ackedAt! - killedAt;
    // The write may land a moment before the watch sees role=master again (the Service's endpoints
    // can follow the label first): the master is whoever carries the label once one does.
    const master = await until('a pod labelled master after the kill', async () => watch.masterChanges.at(-1) || undefined, 120_000);
    const labels = watch.masterChanges
      .slice(changes)
      .map((m, i) => `${m || '(none)'} +${((watch.changedAt[changes + i]! - killedAt) / 1000).toFixed(2)} s`);
    console.log(
      `${what}: ${killed} killed at ${new Date(killedAt).toISOString()}; role=master ${labels.join(', ') || 'unchanged'}; first write accepted through the master Service at +${(ms / 1000).toFixed(2)} s`,
    );
    console.log(`${what}: why writes failed meanwhile: ${failureSummary(writer, killedAt, first.ackedAt!)}`);
    return { killed, killedAt, ms, master };
  }

  const clusterEvents = async () =>
    (
      await sb.client.list<{
        reason?: string;
        message?: string;
        involvedObject?: { name?: string };
        lastTimestamp?: string;
        eventTime?: string;
        metadata: object;
      }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: c.namespace })
    ).items;

  const idsOn = async (pod: string, from: number): Promise<number[]> =>
    (await sqlOnPod(sb, c, pod, `SELECT id FROM ${lab.table} WHERE id >= ${from} ORDER BY id`)).map((r) => Number(r.id));

  for (let run = 1; run <= RUNS; run++) {
    it(`failover ${run}/${RUNS}: the master's mysqld killed while writing, a replica promoted, no acknowledged write lost, the old master back as a replica`, async () => {
      const firstId = run * 1_000_000;
      // A run starts from a Ready cluster whatever the one before left.
      view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: READY_TIMEOUT_MS });
      const writer = await writerThroughMaster(lab, firstId);
      // Root too: the account a fence must bind as well (on MariaDB it holds every privilege).
      const rootWriter = await writerThroughMaster(lab, firstId + 500_000, 'root');
      writer.start();
      rootWriter.start();
      let kill: Awaited<ReturnType<typeof killMaster>>;
      try {
        await until('writes acknowledged through the master Service', async () => writer.acked()[0], 60_000);
        kill = await killMaster(writer, `failover ${run}`);
        if (kill.master === kill.killed) {
          // The kubelet restarts a first crash at once, as a real one does: a mysqld back before
          // Orchestrator's next poll is no dead master, and stays master. Its second crash waits
          // out the restart backoff (10 s), which Orchestrator sees.
          inPlaceMs.push(kill.ms);
          view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: READY_TIMEOUT_MS });
          kill = await killMaster(writer, `failover ${run}, killed again`);
        }
        recoveryMs.push(kill.ms);
        const since = Date.now();
        await until('more writes accepted through the new master', async () => writer.firstAckedAfter(since), 60_000);
      } finally {
        await Promise.all([writer.stop(), rootWriter.stop()]);
      }
      const { killed, master } = kill;
      assert.ok(master && master !== killed, `a replica was promoted (role=master: ${watch.masterChanges.join(' → ')})`);
      const acked = [...writer.acked(), ...rootWriter.acked()];
      console.log(
        `failover ${run}: ${acked.length} writes acknowledged (${rootWriter.acked().length} as root), ${writer.failed().length + rootWriter.failed().length} failed`,
      );
      const onMaster = new Set(await idsOn(master, firstId));
      assert.deepEqual(
        acked.filter((id) => !onMaster.has(id)),
        [],
        `no acknowledged write missing on the new master ${master}`,
      );

      // The old master rejoins, unless the kill cut off a transaction it had committed and not yet
      // sent: the node controller refuses it then (ErrantTransactions). Such rows must be writes the
      // client never saw acknowledged; the pod is rebuilt as a user would (PVC and pod deleted).
      const outcome = await until(
        `${killed} back as a replica, or refused for errant transactions`,
        async () => {
          const v = await clusterView(sb.client, c.namespace, c.name);
          if (v.ready && v.pods.find((p) => p.name === killed)?.role === ROLE.replica) return 'rejoined';
          return (await clusterEvents()).some(
            (e) =>
              e.reason === NODE_REASONS.errantTransactions &&
              e.involvedObject?.name === killed &&
              Date.parse(e.lastTimestamp ?? e.eventTime ?? '') >= kill.killedAt - 1000,
          )
            ? 'errant'
            : undefined;
        },
        READY_TIMEOUT_MS,
      );
      if (outcome === 'errant') {
        const extra = (await idsOn(killed, firstId)).filter((id) => !onMaster.has(id));
        console.log(
          `failover ${run}: ${killed} refused to rejoin, holding rows the new master lacks: ${extra.join(', ')} (none acknowledged); rebuilding it`,
        );
        assert.deepEqual(
          extra.filter((id) => acked.includes(id)),
          [],
          "the old master's extra rows were never acknowledged",
        );
        errantRuns.push(run);
        const ordinal = Number(killed.slice(killed.lastIndexOf('-') + 1));
        const deleted = await sb.kubectl([
          'delete',
          '-n',
          c.namespace,
          '--wait=false',
          `pvc/${names.pvc(c.name, ordinal)}`,
          `pod/${killed}`,
        ]);
        assert.ok(deleted.ok, deleted.out);
      }
      view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: READY_TIMEOUT_MS });
      // What lets the next run recover it if promoted and killed (Orchestrator recovers no downtimed
      // master; a downtimed replica may be promoted, as 3.2.6 does): its lost-in-recovery downtime ended. The operator ends it once the pod
      // is a healthy replica; a real Orchestrator's own expiry may come first, so Orchestrator is asked.
      const orchestrator = (await sandboxOrchestrator(sb)).client;
      await until(
        `${killed}'s lost-in-recovery downtime to end in Orchestrator`,
        async () => ((await orchestrator.instance({ host: podFqdn(killed, c.namespace), port: PORT.mysql })).downtimed ? undefined : true),
        120_000,
      );
      const endedBy = (await clusterEvents()).some(
        (e) =>
          e.reason === ORCHESTRATOR_REASONS.downtimeEnded &&
          e.message?.startsWith(`${podFqdn(killed, c.namespace)}:`) &&
          Date.parse(e.lastTimestamp ?? e.eventTime ?? '') >= kill.killedAt - 1000,
      );
      console.log(
        `failover ${run}: ${killed}'s downtime ended by ${endedBy ? 'the operator (DowntimeEnded Event)' : "Orchestrator's own expiry"}`,
      );
      // What lets the next run's kill of the promoted master be failed over: a real Orchestrator
      // refuses to recover a recovery's successor while that recovery is unacknowledged and in its
      // RecoveryPeriodBlockSeconds. The operator acknowledges it once the cluster is Ready again.
      await until(
        'the recovery acknowledged in Orchestrator by the operator',
        async () => ((await orchestrator.recoveries(`${c.name}.${c.namespace}`)).every((r) => r.acknowledged) ? true : undefined),
        120_000,
      );
      assert.equal(view.master, master, 'role=master stayed on the promoted pod');
      assert.equal(view.pods.find((p) => p.name === killed)?.role, ROLE.replica, 'the old master is back as a replica');
      assert.deepEqual(watch.violations, [], 'never two pods with role=master');
      await assertWritesOnEveryPod(
        sb,
        c,
        view.pods.map((p) => p.name),
        master,
        lab.table,
        acked,
        firstId,
      );
    });
  }

  it("keeps the MysqlUser's grants on the new master, and applies a change there", async () => {
    const master = view.master!;
    const grants = await grantsOn(master);
    assert.ok(
      grants.some((x) => /GRANT SELECT, INSERT, UPDATE, DELETE ON `shop`\.\*/.test(x)),
      grants.join('\n'),
    );
    const user = await sb.client.get<{
      metadata: { name: string };
      spec: { permissions: { schema: string; tables: string[]; permissions: string[] }[] };
    }>({ apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_USER, namespace: c.namespace, name: shop.name });
    const permissions = [{ ...user.spec.permissions[0]!, permissions: [...user.spec.permissions[0]!.permissions, 'CREATE'] }];
    await sb.client.patch(
      { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_USER, namespace: c.namespace, name: user.metadata.name },
      { spec: { permissions } },
    );
    const changed = await until(
      'the added CREATE grant on the new master',
      async () => {
        const g = await grantsOn(master);
        return g.some((x) => x.includes('CREATE') && x.includes('`shop`.*')) ? g : undefined;
      },
      120_000,
    );
    assert.ok(
      changed.some((x) => /GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `shop`\.\*/.test(x)),
      changed.join('\n'),
    );
  });

  it('prints the time from kill to the first accepted write', () => {
    const sorted = [...recoveryMs].sort((a, b) => a - b);
    const median = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN;
    if (errantRuns.length)
      console.log(
        `failovers whose old master held an unacknowledged transaction the kill cut off (rebuilt): ${errantRuns.join(', ')} of ${RUNS}`,
      );
    if (inPlaceMs.length)
      console.log(
        `kills where mysqld came back before Orchestrator declared the master dead (no failover): writes back at ${inPlaceMs.map((m) => (m / 1000).toFixed(2)).join(', ')} s`,
      );
    console.log(
      `kill → first write through the master Service, ${sorted.length} runs: ${sorted.map((m) => (m / 1000).toFixed(2)).join(', ')} s; median ${(median / 1000).toFixed(2)} s, max ${((sorted.at(-1) ?? NaN) / 1000).toFixed(2)} s (goal: median ≤ 3 s, max ≤ 4 s)`,
    );
  });
});
