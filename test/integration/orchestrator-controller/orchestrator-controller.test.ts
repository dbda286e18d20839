// The orchestrator controller against the test API server (or TEST_KUBECONFIG), three real MariaDB
// servers and the Orchestrator stand-in (orc-lab.ts), with the node controller as the operator runs
// them. One cluster lives through the scenarios in order: registered, lagging replica, Orchestrator
// down and back, master killed (the failover held open at its PreFailover hook), the old master
// back as a replica and the recovery acknowledged, a planned stop of the master's pod, scale-down,
// deleted. Another lab: an old master rejoined, its Orchestrator downtime ended, promoted by the next failover.
// The flavour that ran is MariaDB (the stand-in speaks MariaDB GTID only).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FINALIZER_ORCHESTRATOR, LABEL_HEALTHY, LABEL_ROLE } from '../../../src/api/constants.ts';
import type { ClusterCondition, NodeStatus } from '../../../src/api/index.ts';
import { renderClusterServices } from '../../../src/controllers/cluster/render-services.ts';
import { orchestratorClient } from '../../../src/orchestrator/index.ts';
import { verifiedSinceStart } from '../../../src/controllers/mysql-node/decide-condition.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import type { PodObject } from '../../../src/topology/index.ts';
import type { MariaDBServer } from '../../support/mariadb.ts';
import { NO_MOUNT_NS, runPreStop } from '../../support/pre-stop.ts';
import { eventually } from '../../support/wait.ts';
import { NEEDS_REQUEST_LOG } from '../cluster/operator.ts';
import { CLUSTER, podName, waitSameData } from '../mysql-node/node-cluster.ts';
import { fqdn, masters, OPERATOR_AGENT, orcLab, watchMasters, type OrcLab } from './orc-lab.ts';

const CLUSTER_REF = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
/** Short, so the test sees a recovery acknowledged. */
const ACK_GRACE_MS = 3000;

/** The fields of Orchestrator's audit-recovery entries the test reads. */
interface Recovery {
  Id: number;
  RecoveryStartTimestamp: string;
  Acknowledged: boolean;
  AcknowledgedAt: string;
  AcknowledgedComment: string;
}

function condition(conditions: readonly ClusterCondition[] | undefined, type: string): ClusterCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

function nodeCondition(nodes: readonly NodeStatus[] | undefined, name: string, type: string): string | undefined {
  return nodes?.find((n) => n.name === name)?.conditions?.find((c) => c.type === type)?.status;
}

function labelsOf(pods: readonly PodObject[]): Record<string, string> {
  return Object.fromEntries(
    pods.map((p) => [p.metadata?.name ?? '', `${p.metadata?.labels?.[LABEL_ROLE]}/${p.metadata?.labels?.[LABEL_HEALTHY]}`]),
  );
}

/** Waits until the cluster's condition `type` has `status` (and `reason`); throws the last one seen. */
function waitCondition(lab: OrcLab, type: string, status: string, reason?: string) {
  return eventually(
    `${type}=${status}${reason ? ` (${reason})` : ''}`,
    async () => {
      const c = condition((await lab.cluster()).status?.conditions, type);
      if (c?.status === status && (reason === undefined || c.reason === reason)) return c;
      throw new Error(`last: ${JSON.stringify(c)}`);
    },
    60_000,
  );
}

async function eventReasons(lab: OrcLab): Promise<string[]> {
  const list = await lab.client.list<KubeObject & { reason?: string; involvedObject?: { name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: lab.ns },
  );
  return list.items.filter((e) => e.involvedObject?.name === CLUSTER).map((e) => e.reason ?? '');
}

/** Waits until Orchestrator names a master other than pod `old`; its pod's name. */
async function promotedFrom(lab: OrcLab, old: number): Promise<string> {
  const host = await eventually(
    'Orchestrator to promote a replica',
    async () => {
      const h = (await lab.orc(`/api/master/${CLUSTER}.${lab.ns}`)).body?.Key?.Hostname as string | undefined;
      return h !== undefined && h !== fqdn(lab.ns, old) ? h : undefined;
    },
    60_000,
  );
  return host.split('.')[0]!;
}

function ordinalOf(pod: string | undefined): number {
  const i = Number(pod?.slice(pod.lastIndexOf('-') + 1));
  assert.ok(Number.isInteger(i), `a pod of the cluster: ${pod}`);
  return i;
}

/** The server standing in for a pod's mysqld. */
function serverOf(lab: OrcLab, pod: string | undefined): MariaDBServer {
  return lab.nc.servers[ordinalOf(pod)]!;
}

async function audit(lab: OrcLab, id: number): Promise<Recovery> {
  const all = (await lab.orc(`/api/audit-recovery/alias/${CLUSTER}.${lab.ns}`)).body as Recovery[];
  const r = all.find((x) => x.Id === id);
  assert.ok(r, `recovery ${id} in Orchestrator's audit`);
  return r;
}

/** The value of a sample of the operator's /metrics page, or 0 when it is not there. */
function sample(page: string, name: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

// The labs share nothing (a namespace, servers, a stand-in and a manager each): they run side by side.
describe('the orchestrator controller', { concurrency: true }, () => {
  test('the orchestrator controller keeps status, labels and registration in step with Orchestrator', async (t) => {
    const lab = await orcLab(t, { ackGraceMs: ACK_GRACE_MS });
    const { ns } = lab;
    const watch = await watchMasters(lab, t);
    const alias = `${CLUSTER}.${ns}`;

    await t.test('a new 3-node cluster is registered; status shows one master and two replicating replicas', async () => {
      await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
      const instances = (await lab.orc(`/api/cluster/alias/${alias}`)).body as Array<{ Key: { Hostname: string; Port: number } }>;
      assert.deepEqual(
        instances.map((i) => `${i.Key.Hostname}:${i.Key.Port}`).sort(),
        [0, 1, 2].map((i) => `${fqdn(ns, i)}:3306`),
      );
      const cluster = await lab.cluster();
      assert.ok(cluster.metadata?.finalizers?.includes(FINALIZER_ORCHESTRATOR), 'the finalizer is on the cluster');
      const nodes = cluster.status?.nodes;
      assert.deepEqual(
        [0, 1, 2].map((i) => nodeCondition(nodes, fqdn(ns, i), 'Master')),
        ['True', 'False', 'False'],
      );
      assert.deepEqual(
        [0, 1, 2].map((i) => nodeCondition(nodes, fqdn(ns, i), 'Replicating')),
        ['False', 'True', 'True'],
      );
      assert.deepEqual(
        [1, 2].map((i) => nodeCondition(nodes, fqdn(ns, i), 'Lagged')),
        ['False', 'False'],
      );
      assert.equal(condition(cluster.status?.conditions, 'FailoverInProgress')?.reason, 'ClusterMasterHealthy');
      await eventually('labels', async () => {
        const l = labelsOf(await lab.pods());
        assert.deepEqual(l, { [podName(0)]: 'master/yes', [podName(1)]: 'replica/yes', [podName(2)]: 'replica/yes' });
        return true;
      });
      assert.equal(
        await lab.nc.servers[0]!.sql('SELECT @@read_only AS ro').then((r) => Number(r[0]?.ro)),
        0,
        'the master was made writable',
      );
      await eventually('the cluster counted Ready', async () => sample(await lab.metrics(), 'mysql_operator_clusters{ready="True"}') === 1);
      // The node controller configured every pod and verified it since its mysqld started; passes
      // that began once it had (their cache showing the stamp) have run, so it is settled too.
      await eventually('every pod verified by the node controller', async () => (await lab.pods()).every(verifiedSinceStart));
      await lab.nodePasses(2);
    });

    await t.test('steady state makes no writes', { skip: lab.nc.kube.server ? false : NEEDS_REQUEST_LOG }, async () => {
      const log = lab.nc.kube.server!.requestLog;
      const mark = log.mark();
      // Three finished passes: at least two ran wholly inside the window.
      await lab.passes(3);
      assert.deepEqual(
        log
          .writes(mark)
          .filter((e) => e.userAgent === OPERATOR_AGENT)
          .map((e) => `${e.verb} ${e.resource}/${e.name}`),
        [],
      );
    });

    await t.test("the Services' selectors pick exactly the labelled pods", async () => {
      const cluster = await lab.cluster();
      const services = renderClusterServices({ name: CLUSTER, namespace: ns, uid: cluster.metadata?.uid ?? '' }, {});
      const picked: Record<string, string[]> = {};
      for (const svc of services) {
        const list = await lab.client.list<PodObject>(
          { apiVersion: 'v1', kind: 'Pod' },
          { namespace: ns, labelSelector: svc.spec?.selector ?? {} },
        );
        picked[svc.metadata?.name ?? ''] = list.items.map((p) => p.metadata?.name ?? '').sort();
      }
      assert.deepEqual(picked, {
        [`${CLUSTER}-mysql-master`]: [podName(0)],
        [`${CLUSTER}-mysql`]: [podName(0), podName(1), podName(2)],
        [`${CLUSTER}-mysql-replicas`]: [podName(1), podName(2)],
      });
    });

    await t.test('a lagging replica is Lagged and healthy=no, and comes back once it catches up', async () => {
      await lab.client.patch({ ...CLUSTER_REF, namespace: ns, name: CLUSTER }, { spec: { maxSlaveLatency: 1 } });
      const replica = lab.nc.servers[2]!;
      await replica.sql('STOP SLAVE; CHANGE MASTER TO MASTER_DELAY=3600; START SLAVE');
      await lab.nc.servers[0]!.sql(
        'CREATE DATABASE IF NOT EXISTS app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)',
      );
      await eventually('pod 2 lagged and out of the Services', async () => {
        const cluster = await lab.cluster();
        assert.equal(nodeCondition(cluster.status?.nodes, fqdn(ns, 2), 'Lagged'), 'True');
        assert.equal(labelsOf(await lab.pods())[podName(2)], 'replica/no');
        return true;
      });
      await replica.sql('STOP SLAVE; CHANGE MASTER TO MASTER_DELAY=0; START SLAVE');
      await eventually('pod 2 back in the Services', async () => labelsOf(await lab.pods())[podName(2)] === 'replica/yes');
    });

    await t.test('Orchestrator down: Ready and FailoverInProgress Unknown, labels untouched; back: Ready again', async () => {
      const before = await lab.pods();
      await lab.orchestrator.cut();
      await waitCondition(lab, 'Ready', 'Unknown', 'OrchestratorUnreachable');
      await eventually(
        'the cluster counted Unknown',
        async () => sample(await lab.metrics(), 'mysql_operator_clusters{ready="Unknown"}') === 1,
      );
      const cluster = await lab.cluster();
      assert.equal(condition(cluster.status?.conditions, 'FailoverInProgress')?.status, 'Unknown');
      assert.equal(condition(cluster.status?.conditions, 'FailoverInProgress')?.reason, 'OrchestratorUnreachable');
      // Passes that saw Orchestrator unreachable have run; no pod was written.
      await lab.passes(2);
      const after = await lab.pods();
      assert.deepEqual(
        after.map((p) => [p.metadata?.name, p.metadata?.resourceVersion]),
        before.map((p) => [p.metadata?.name, p.metadata?.resourceVersion]),
      );
      await lab.orchestrator.restore();
      await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
    });

    await t.test(
      'the master is SIGKILLed: FailoverInProgress while Orchestrator fails over; role=master moves to the pod Orchestrator promoted, never two at once',
      async (st) => {
        const page = await lab.metrics();
        const successfulBefore = sample(page, 'mysql_operator_failovers_total{outcome="successful"}');
        lab.failoverGate.hold();
        await lab.nc.servers[0]!.kill();
        // Orchestrator's recovery waits in its PreFailover hook, before the hook call to the operator:
        // the condition comes from Orchestrator's own view, held open while it is checked.
        const during = await waitCondition(lab, 'FailoverInProgress', 'True', 'OrcFailoverInProgress');
        assert.match(
          during.message ?? '',
          new RegExp(`(DeadMaster|DeadMasterAndSomeReplicas) on ${fqdn(ns, 0).replaceAll('.', '\\.')}:3306`),
        );
        await eventually('the FailoverInProgress Event', async () => (await eventReasons(lab)).includes('FailoverInProgress'));
        // Passes that saw the failover have run: the dead master's label is off, nobody else has it,
        // and nothing was made writable under Orchestrator.
        await lab.passes(2);
        assert.equal((await lab.orc(`/api/master/${alias}`)).body?.Key?.Hostname, fqdn(ns, 0), 'the failover is still held');
        assert.deepEqual(masters(await lab.pods()), []);
        for (const i of [1, 2]) assert.equal(await (await lab.nc.root(i)).isReadOnly(), true, `${podName(i)} still read-only`);
        lab.failoverGate.release();

        const pod = await promotedFrom(lab, 0);
        await eventually(`role=master on ${pod}`, async () => {
          const l = labelsOf(await lab.pods());
          assert.equal(l[pod], 'master/yes');
          assert.equal(l[podName(0)]?.startsWith('replica/'), true);
          return true;
        });
        await waitCondition(lab, 'FailoverInProgress', 'False', 'ClusterMasterHealthy');
        assert.deepEqual(watch.violations, [], 'never two pods with role=master');
        assert.ok(watch.events > 0, 'the watch saw the relabelling');
        const metrics = await eventually('the failover in the metrics', async () => {
          const p = await lab.metrics();
          return sample(p, 'mysql_operator_failovers_total{outcome="successful"}') === successfulBefore + 1 ? p : undefined;
        });
        // The PostMasterFailover hook call was followed to the label (hook-to-labels observed once).
        assert.equal(sample(metrics, 'mysql_operator_failover_hook_to_labels_seconds_count'), 1);
        st.diagnostic(
          `PostMasterFailover hook call to role=master on ${pod}: ${sample(metrics, 'mysql_operator_failover_hook_to_labels_seconds_sum')} s`,
        );
        assert.deepEqual(masters(await lab.pods()), [pod]);
      },
    );

    await t.test(
      'the old master, restarted, rejoins as a replica; the recovery is acknowledged once the cluster is Ready again and the grace has passed, never before',
      async () => {
        const [recovery] = (await lab.orc(`/api/audit-recovery/alias/${alias}`)).body as Recovery[];
        assert.ok(recovery && !recovery.Acknowledged, 'the failover is not acknowledged yet');
        // The grace passes while the old master is down; passes that could acknowledge then hold.
        const started = Date.parse(recovery.RecoveryStartTimestamp);
        await eventually('the ack grace to pass', () => Date.now() > started + 1000 + ACK_GRACE_MS);
        await lab.passes(2);
        let cluster = await lab.cluster();
        assert.equal(condition(cluster.status?.conditions, 'Ready')?.status, 'False');
        assert.equal(condition(cluster.status?.conditions, 'PendingFailoverAck')?.status, 'True');
        assert.match(
          condition(cluster.status?.conditions, 'PendingFailoverAck')?.message ?? '',
          new RegExp(`unacknowledged recoveries: ${recovery.Id} `),
        );
        assert.equal((await audit(lab, recovery.Id)).Acknowledged, false, 'not acknowledged while the cluster is not Ready');
        await eventually('the ClusterNotReady Event of the hold', async () => (await eventReasons(lab)).includes('ClusterNotReady'));

        const [master] = masters(await lab.pods());
        const changes = watch.masterChanges.length;
        await lab.nc.servers[0]!.start();
        await lab.nc.markStarted(0);
        await eventually(
          'the old master to replicate from the new one',
          async () => {
            const rs = await (await lab.nc.root(0)).replicationStatus();
            return rs?.masterHost === serverOf(lab, master).host && rs.ioRunning && rs.sqlRunning;
          },
          60_000,
        );
        await eventually(`${podName(0)} a healthy replica`, async () => labelsOf(await lab.pods())[podName(0)] === 'replica/yes', 60_000);
        const ready = await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
        await waitCondition(lab, 'PendingFailoverAck', 'False', 'NoPendingFailoverAckExists');
        const acked = await audit(lab, recovery.Id);
        assert.equal(acked.Acknowledged, true);
        assert.match(acked.AcknowledgedComment, /^mysql-operator: cluster Ready/);
        // Both to the second: the acknowledgement came no earlier than Ready turned True.
        assert.ok(
          Date.parse(acked.AcknowledgedAt) >= Date.parse(ready.lastTransitionTime ?? ''),
          `acknowledged at ${acked.AcknowledgedAt}, Ready since ${ready.lastTransitionTime}`,
        );
        await eventually('the RecoveriesAcknowledged Event', async () => (await eventReasons(lab)).includes('RecoveriesAcknowledged'));
        cluster = await lab.cluster();
        assert.equal(nodeCondition(cluster.status?.nodes, fqdn(ns, 0), 'Replicating'), 'True');
        assert.equal(await (await lab.nc.root(0)).isReadOnly(), true);
        // The master's pod kept role=master throughout: the old master coming back moved no label.
        assert.deepEqual(watch.masterChanges.slice(changes), [], `role=master on ${master} throughout`);
      },
    );

    await t.test(
      "a planned stop of the master's pod: its preStop hands the master over first, and the labels follow",
      { skip: NO_MOUNT_NS },
      async (st) => {
        const [was] = masters(await lab.pods());
        const m = ordinalOf(was);
        const server = serverOf(lab, was);
        const res = await runPreStop(st, { cluster: CLUSTER, namespace: ns, orchestratorUrl: lab.orchestrator.url }, m, server);
        assert.equal(res.code, 0, res.output);
        assert.match(res.output, /graceful-master-takeover-auto is ongoing/);
        // Checked once the script returned, before mysqld stops: the takeover is done.
        const now = String((await lab.orc(`/api/master/${alias}`)).body?.Key?.Hostname);
        assert.notEqual(now, fqdn(ns, m));
        const pod = now.split('.')[0]!;
        // The kubelet stops the container and starts it again (a rolling update's restart).
        await server.stop();
        await server.start();
        await lab.nc.markStarted(m);
        await eventually(
          `role=master on ${pod}, ${podName(m)} a healthy replica`,
          async () => {
            const l = labelsOf(await lab.pods());
            assert.equal(l[pod], 'master/yes');
            assert.equal(l[podName(m)], 'replica/yes');
            return true;
          },
          60_000,
        );
        const rs = await (await lab.nc.root(m)).replicationStatus();
        assert.equal(rs?.masterHost, serverOf(lab, pod).host, 'the old master replicates from the new one');
        await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
        assert.deepEqual(watch.violations, [], 'never two pods with role=master');
        assert.deepEqual(masters(await lab.pods()), [pod]);
      },
    );

    await t.test("scale-down: a removed pod's instance is forgotten once Orchestrator has not seen it for the grace period", async () => {
      const master = masters(await lab.pods())[0];
      const victim = [2, 1].find((i) => podName(i) !== master)!;
      await lab.client.patch({ ...CLUSTER_REF, namespace: ns, name: CLUSTER }, { spec: { replicas: 2 } });
      await lab.client.patchStatus({ ...CLUSTER_REF, namespace: ns, name: CLUSTER }, { status: { readyNodes: 2 } });
      await lab.nc.servers[victim]!.stop();
      await lab.client.delete({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: podName(victim) });
      await eventually(
        `${fqdn(ns, victim)} forgotten`,
        async () => (await lab.orc(`/api/instance/${fqdn(ns, victim)}/3306`)).status === 500,
        60_000,
      );
      // The Event follows the forget call: wait for it rather than read the events at once.
      const reasons = await eventually('the InstanceForgotten Event', async () => {
        const r = await eventReasons(lab);
        return r.includes('InstanceForgotten') ? r : undefined;
      });
      assert.ok(reasons.includes('ForgetGracePeriod'), `held first for the grace period: ${reasons.join(', ')}`);
    });

    await t.test('deleting the cluster forgets every instance in Orchestrator and removes the finalizer', async () => {
      await lab.client.delete({ ...CLUSTER_REF, namespace: ns, name: CLUSTER });
      await eventually(
        'the cluster to be gone',
        async () => (await lab.client.getIfExists({ ...CLUSTER_REF, namespace: ns, name: CLUSTER })) === undefined,
        60_000,
      );
      const all = (await lab.orc('/api/all-instances')).body as Array<{ Key: { Hostname: string } }>;
      assert.deepEqual(
        all.map((i) => i.Key.Hostname).filter((h) => h.endsWith(`.mysql.${ns}`)),
        [],
      );
    });
  });

  test('a cluster deleted while Orchestrator is down waits for it, then goes without forgetting, saying so', async (t) => {
    const lab = await orcLab(t, { finalizerTimeoutMs: 3000 });
    await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
    await lab.orchestrator.cut();
    await lab.client.delete({ ...CLUSTER_REF, namespace: lab.ns, name: CLUSTER });
    await eventually('a Warning that the deletion waits for Orchestrator', async () =>
      (await eventReasons(lab)).includes('OrchestratorUnreachable'),
    );
    await eventually(
      'the cluster to be gone',
      async () => (await lab.client.getIfExists({ ...CLUSTER_REF, namespace: lab.ns, name: CLUSTER })) === undefined,
    );
    assert.ok((await eventReasons(lab)).includes('ForgetAbandoned'));
    // Nothing was forgotten: Orchestrator still knows the three servers.
    const instances = (await lab.orc(`/api/cluster/alias/${CLUSTER}.${lab.ns}`)).body as unknown[];
    assert.equal(instances.length, 3);
  });

  test('an old master holding a write the new master lacks stays out of the Services, and role=master stays on the new master', async (t) => {
    const lab = await orcLab(t);
    const { ns } = lab;
    await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
    await eventually('every pod verified by the node controller', async () => (await lab.pods()).every(verifiedSinceStart));
    const [s0, s1, s2] = lab.nc.servers as [MariaDBServer, MariaDBServer, MariaDBServer];
    await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
    await waitSameData(s0, s1, 'app.t');
    await waitSameData(s0, s2, 'app.t');
    // A write the replicas never receive before the master dies (asynchronous replication).
    for (const r of [s1, s2]) await r.sql('STOP SLAVE IO_THREAD');
    await s0.sql('INSERT INTO app.t VALUES (2)');
    const errant = String((await s0.sql('SELECT @@global.gtid_binlog_pos AS g'))[0]?.g);
    await s0.kill();
    const pod = await promotedFrom(lab, 0);
    await eventually(`role=master on ${pod}`, async () => labelsOf(await lab.pods())[pod] === 'master/yes', 60_000);
    const watch = await watchMasters(lab, t);

    await s0.start();
    await lab.nc.markStarted(0);
    const refused = await lab.nc.waitCondition(0, 'False', /^ErrantTransactions: /);
    assert.match(refused.message ?? '', new RegExp(`lacks: ${errant};`));
    // Orchestrator has polled the old master since it came back, and passes that saw it have run.
    await eventually(
      `Orchestrator to see ${podName(0)} again`,
      async () => (await lab.orc(`/api/instance/${fqdn(ns, 0)}/3306`)).body?.IsLastCheckValid === true,
    );
    await lab.passes(2);
    assert.equal(
      String((await lab.orc(`/api/master/${CLUSTER}.${ns}`)).body?.Key?.Hostname),
      fqdn(ns, ordinalOf(pod)),
      "Orchestrator's master is still the promoted one",
    );
    const labels = labelsOf(await lab.pods());
    assert.equal(labels[pod], 'master/yes');
    assert.equal(labels[podName(0)], 'replica/no', 'the old master is out of the Services');
    assert.deepEqual(watch.masterChanges, [pod], `role=master stayed on ${pod}`);
    assert.deepEqual(watch.violations, []);
    const ready = condition((await lab.cluster()).status?.conditions, 'Ready');
    assert.equal(ready?.reason, 'NotReplicating');
    assert.match(ready?.message ?? '', new RegExp(fqdn(ns, 0).replaceAll('.', '\\.')));
    assert.equal(await (await lab.nc.root(0)).isReadOnly(), true);
  });

  // Orchestrator downtimes a recovered-from master as lost-in-recovery, renewed while it is lost; a
  // real Orchestrator recovers no downtimed master. So the operator ends that downtime once the old
  // master is a healthy replica again. The other replica carries a backup's downtime (as the backup
  // controller begins it) that must stay. Both hold every row; the stand-in, as 3.2.6, promotes
  // downtimed replicas too, and breaks the tie by key: the rejoined old master (pod 0).
  test('an old master that rejoined as a healthy replica is no longer downtimed in Orchestrator and is promoted by the next failover; a backup downtime stays', async (t) => {
    const lab = await orcLab(t);
    const { ns } = lab;
    await waitCondition(lab, 'Ready', 'True', 'ClusterReady');
    await eventually('every pod verified by the node controller', async () => (await lab.pods()).every(verifiedSinceStart));
    const watch = await watchMasters(lab, t);
    const instance = async (i: number) =>
      (await lab.orc(`/api/instance/${fqdn(ns, i)}/3306`)).body as {
        IsDowntimed: boolean;
        DowntimeReason: string;
        IsLastCheckValid: boolean;
      };
    const [s0] = lab.nc.servers as [MariaDBServer];
    await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
    for (const r of lab.nc.servers.slice(1)) await waitSameData(s0, r, 'app.t');

    await s0.kill();
    const first = await promotedFrom(lab, 0);
    await eventually(`role=master on ${first}`, async () => labelsOf(await lab.pods())[first] === 'master/yes', 60_000);
    const events = async () =>
      (await lab.client.list<KubeObject & { reason?: string; message?: string }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: ns }))
        .items;
    await eventually('a RejoinPending Event: the downtime stays while the old master is down', async () =>
      (await events()).some((e) => e.reason === 'RejoinPending' && e.message?.includes(`${fqdn(ns, 0)}:3306 (`)),
    );
    await s0.start();
    await lab.nc.markStarted(0);
    await eventually(`Orchestrator to see ${podName(0)} again`, async () => (await instance(0)).IsLastCheckValid);
    await eventually(
      `${podName(0)} a healthy replica of ${first}`,
      async () => labelsOf(await lab.pods())[podName(0)] === 'replica/yes',
      60_000,
    );
    await eventually(`${podName(0)}'s lost-in-recovery downtime ended`, async () => {
      const i = await instance(0);
      if (i.IsDowntimed) throw new Error(`still downtimed: ${i.DowntimeReason}`);
      return true;
    });
    // Events are posted after the call that ended the downtime, without the pass waiting for them.
    await eventually('a DowntimeEnded Event names the old master and its master', async () =>
      (await events()).some(
        (e) =>
          e.reason === 'DowntimeEnded' && e.message?.includes(`${fqdn(ns, 0)}:3306 replicates from ${fqdn(ns, ordinalOf(first))}:3306`),
      ),
    );

    const other = [1, 2].find((i) => podName(i) !== first)!;
    const orchestrator = orchestratorClient({ baseUrl: `${lab.standIn.url}/api` });
    const backup = `backup ${ns}/${CLUSTER}-backup`;
    await orchestrator.beginDowntime({ host: fqdn(ns, other), port: 3306 }, { owner: 'mysql-operator', reason: backup, seconds: 600 });
    const sFirst = serverOf(lab, first);
    await sFirst.sql('INSERT INTO app.t VALUES (2)');
    await waitSameData(sFirst, s0, 'app.t');
    await sFirst.kill();
    const second = await promotedFrom(lab, ordinalOf(first));
    assert.equal(second, podName(0), 'the rejoined old master was promoted');
    await eventually(`role=master on ${second}`, async () => labelsOf(await lab.pods())[second] === 'master/yes', 60_000);
    assert.deepEqual(watch.violations, [], 'never two pods with role=master');
    assert.deepEqual(
      (await s0.sql('SELECT id FROM app.t ORDER BY id')).map((r) => Number(r.id)),
      [1, 2],
    );
    await lab.passes(2);
    const held = await instance(other);
    assert.deepEqual([held.IsDowntimed, held.DowntimeReason], [true, backup], "the backup's downtime is not the operator's to end");
  });
});
