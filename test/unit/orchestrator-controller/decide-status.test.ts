import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_STATUS_OWNERS } from '../../../src/api/status-owners.ts';
import { decideStatus, type OrchestratorOwnedStatus } from '../../../src/controllers/orchestrator-controller/decide-status.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import {
  analysis,
  fqdn,
  healthy,
  instance,
  master,
  mysqlCluster,
  node,
  pod,
  reachable,
  recovery,
  replicaServer,
  server,
  unreachable,
} from './builders.ts';

/** `type: status` of every node condition, per node name. */
function nodeTable(s: OrchestratorOwnedStatus): Record<string, string> {
  return Object.fromEntries(s.nodes.map((n) => [n.name, (n.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(' ')]));
}

function cond(s: OrchestratorOwnedStatus, type: string) {
  const c = s.conditions.find((x) => x.type === type);
  assert.ok(c, type);
  return c;
}

function brief(s: OrchestratorOwnedStatus, type: string): string {
  const c = cond(s, type);
  return `${c.status} ${c.reason}`;
}

/** The same pass seen again later, with the status it wrote stored on the cluster. */
function after(g: Gathered, s: OrchestratorOwnedStatus, laterMs: number, over: Partial<Gathered> = {}): Gathered {
  const cluster = { ...g.cluster, status: { ...g.cluster.status, ...s } };
  return { ...g, cluster, now: new Date(g.now.getTime() + laterMs), ...over };
}

describe('decideStatus', () => {
  it('mirrors a healthy cluster: node conditions and the four cluster conditions with the anchor reasons', () => {
    const { status, write } = decideStatus(healthy());
    assert.equal(write, true);
    assert.deepEqual(nodeTable(status), {
      [fqdn(0)]: 'Lagged=False Replicating=False Master=True ReadOnly=False',
      [fqdn(1)]: 'Lagged=False Replicating=True Master=False ReadOnly=True',
      [fqdn(2)]: 'Lagged=False Replicating=True Master=False ReadOnly=True',
    });
    assert.equal(brief(status, 'Ready'), 'True ClusterReady');
    assert.equal(brief(status, 'PendingFailoverAck'), 'False NoPendingFailoverAckExists');
    assert.equal(brief(status, 'ReadOnly'), 'False ClusterReadOnlyFalse');
    assert.equal(brief(status, 'FailoverInProgress'), 'False ClusterMasterHealthy');
  });

  it('names only what the orchestrator owner owns, all of it', () => {
    const { status } = decideStatus(healthy());
    const owner = CLUSTER_STATUS_OWNERS.orchestrator;
    assert.deepEqual(
      Object.keys(status).filter((k) => k !== 'conditions'),
      [...owner.fields],
    );
    assert.deepEqual(
      status.conditions.map((c) => c.type),
      [...owner.conditions],
    );
  });

  it('marks a replica Lagged above maxSlaveLatency, not at it, and Unknown without a lag', () => {
    const g = healthy({ cluster: mysqlCluster({ maxSlaveLatency: 10 }) });
    const instances = [instance(0, null), instance(1, 0, { lagSeconds: 11 }), instance(2, 0, { lagSeconds: 10 })];
    const lagged = decideStatus({ ...g, orchestrator: reachable({ master: instances[0]!, instances }) }).status;
    assert.match(nodeTable(lagged)[fqdn(1)]!, /Lagged=True/);
    assert.match(nodeTable(lagged)[fqdn(2)]!, /Lagged=False/);
    const noLag = [instance(0, null), instance(1, 0, { lagSeconds: null }), instance(2, 0)];
    assert.match(
      nodeTable(decideStatus({ ...g, orchestrator: reachable({ master: noLag[0]!, instances: noLag }) }).status)[fqdn(1)]!,
      /Lagged=Unknown/,
    );
  });

  it('writes nothing the second time, and keeps lastTransitionTime while a status holds', () => {
    const g = healthy();
    const first = decideStatus(g).status;
    const again = decideStatus(after(g, first, 60_000));
    assert.equal(again.write, false);
    assert.deepEqual(again.status, first);

    const changed = decideStatus(
      after(g, first, 60_000, { servers: [node(0, master()), node(1, replicaServer(0)), node(2, server({ configured: true }))] }),
    );
    assert.equal(changed.write, true);
    const times = (s: OrchestratorOwnedStatus, name: string) =>
      Object.fromEntries((s.nodes.find((n) => n.name === name)?.conditions ?? []).map((c) => [c.type, c.lastTransitionTime]));
    assert.deepEqual(times(changed.status, fqdn(1)), times(first, fqdn(1)));
    assert.equal(times(changed.status, fqdn(2)).Replicating, '2026-11-21T19:31:00Z');
    assert.equal(times(changed.status, fqdn(2)).Master, times(first, fqdn(2)).Master);
    assert.equal(cond(changed.status, 'Ready').lastTransitionTime, '2026-11-21T19:31:00Z');
    assert.equal(cond(changed.status, 'PendingFailoverAck').lastTransitionTime, cond(first, 'PendingFailoverAck').lastTransitionTime);
  });

  it('says Orchestrator is unreachable, keeps what the servers say and claims no master', () => {
    const { status } = decideStatus(
      healthy({ orchestrator: { kind: 'unreachable', message: 'GET /master/my-db.default: connect ECONNREFUSED' } }),
    );
    for (const type of ['Ready', 'PendingFailoverAck', 'FailoverInProgress']) {
      assert.equal(brief(status, type), 'Unknown OrchestratorUnreachable');
      assert.match(cond(status, type).message ?? '', /Orchestrator is unreachable: GET \/master/);
    }
    assert.deepEqual(nodeTable(status), {
      [fqdn(0)]: 'Lagged=Unknown Replicating=False Master=Unknown ReadOnly=False',
      [fqdn(1)]: 'Lagged=Unknown Replicating=True Master=Unknown ReadOnly=True',
      [fqdn(2)]: 'Lagged=Unknown Replicating=True Master=Unknown ReadOnly=True',
    });
  });

  it("does not take a dead master's last values from Orchestrator as news", () => {
    const instances = [instance(0, null, { lastCheckValid: false }), instance(1, 0), instance(2, 0)];
    const g = healthy({
      servers: [node(0, unreachable()), node(1, replicaServer(0)), node(2, replicaServer(0))],
      orchestrator: reachable({ master: instances[0]!, instances }),
    });
    assert.equal(nodeTable(decideStatus(g).status)[fqdn(0)], 'Lagged=Unknown Replicating=Unknown Master=True ReadOnly=Unknown');
  });

  it('reports a failover from a DeadMaster analysis or an active recovery, not from detection alone', () => {
    const instances = [instance(0, null, { lastCheckValid: false }), instance(1, 0), instance(2, 0)];
    const failing = (o: Parameters<typeof reachable>[0]) =>
      decideStatus(healthy({ orchestrator: reachable({ master: instances[0]!, instances, ...o }) })).status;
    const dead = failing({ analysis: [analysis(0, 'DeadMaster')] });
    assert.equal(brief(dead, 'FailoverInProgress'), 'True OrcFailoverInProgress');
    assert.match(cond(dead, 'FailoverInProgress').message ?? '', /DeadMaster on my-db-mysql-0\.mysql\.default:3306/);
    assert.equal(
      brief(failing({ recoveries: [recovery(4, 0, null, { active: true, ended: false })] }), 'FailoverInProgress'),
      'True OrcFailoverInProgress',
    );
    assert.equal(brief(failing({ analysis: [analysis(0, 'UnreachableMaster')] }), 'FailoverInProgress'), 'False MasterNotHealthy');
    const aborted = failing({
      analysis: [analysis(0, 'DeadMaster')],
      recoveries: [recovery(5, 0, null, { errors: ['PreFailover hook exited 1'] })],
    });
    assert.match(cond(aborted, 'FailoverInProgress').message ?? '', /recovery 5 .* failed: PreFailover hook exited 1/);
  });

  it('does not read a recovery that ended but is still in its blocking period as a failover', () => {
    // Real 3.2.6 keeps IsActive for RecoveryPeriodBlockSeconds (300 s in the chart) after the end.
    const instances = [instance(1, null), instance(0, 1), instance(2, 1)];
    const g = healthy({
      orchestrator: reachable({ master: instances[0]!, instances, recoveries: [recovery(4, 0, 1, { active: true, ended: true })] }),
    });
    assert.equal(brief(decideStatus(g).status, 'FailoverInProgress'), 'False ClusterMasterHealthy');
  });

  it('does not read the old master alone in its own cluster as a failover', () => {
    const instances = [
      instance(0, null, { downtimed: true, clusterName: `${fqdn(0)}:3306` }),
      instance(1, 2),
      instance(2, null, { clusterName: `${fqdn(2)}:3306` }),
    ];
    const g = healthy({
      orchestrator: reachable({
        master: instances[2]!,
        instances,
        analysis: [analysis(0, 'DeadMasterWithoutReplicas', { downtimed: true })],
      }),
    });
    assert.equal(brief(decideStatus(g).status, 'FailoverInProgress'), 'False ClusterMasterHealthy');
  });

  it('says why the cluster is not Ready', () => {
    const notReady = (g: Gathered) => {
      const c = cond(decideStatus(g).status, 'Ready');
      return `${c.status} ${c.reason}: ${c.message}`;
    };
    assert.equal(
      notReady(healthy({ cluster: mysqlCluster({}, { readyNodes: 2 }) })),
      'False StatefulSetNotReady: StatefulSet is not ready: 2 of 3 pods ready',
    );
    const stopped = [
      node(0, master()),
      node(1, replicaServer(0)),
      node(2, server({ configured: true, replication: { ...replicaServer(0).replication!, sqlRunning: false } })),
    ];
    assert.equal(notReady(healthy({ servers: stopped })), `False NotReplicating: Node ${fqdn(2)} is part of topology and not replicating`);
    assert.equal(
      notReady(healthy({ servers: [node(0, master({ readOnly: true })), node(1, replicaServer(0)), node(2, replicaServer(0))] })),
      `False MasterDisagreement: Orchestrator's master ${fqdn(0)}:3306 is read-only`,
    );
    const noMaster = healthy({ orchestrator: reachable({ master: null, instances: [instance(0, null), instance(1, 0), instance(2, 0)] }) });
    assert.equal(notReady(noMaster), 'False NotReplicating: Node my-db-mysql-0.mysql.default is part of topology and not replicating');
  });

  it('is Ready with a read-only master when spec.readOnly is set', () => {
    const g = healthy({
      cluster: mysqlCluster({ readOnly: true }),
      servers: [node(0, master({ readOnly: true })), node(1, replicaServer(0)), node(2, replicaServer(0))],
    });
    const { status } = decideStatus(g);
    assert.equal(brief(status, 'Ready'), 'True ClusterReady');
    assert.equal(brief(status, 'ReadOnly'), 'True ClusterReadOnlyTrue');
  });

  it('lists unacknowledged recoveries in PendingFailoverAck', () => {
    const instances = [instance(0, null), instance(1, 0), instance(2, 0)];
    const g = healthy({
      orchestrator: reachable({
        master: instances[0]!,
        instances,
        recoveries: [recovery(3, 2, 0), recovery(2, 1, 0, { acknowledged: true })],
      }),
    });
    const c = cond(decideStatus(g).status, 'PendingFailoverAck');
    assert.equal(`${c.status} ${c.reason}`, 'True PendingFailoverAckExists');
    assert.equal(
      c.message,
      `unacknowledged recoveries: 3 (DeadMaster on ${fqdn(2)}:3306, successor ${fqdn(0)}:3306 at 2026-11-21T18:30:00.000Z)`,
    );
  });

  it('says ClusterNotRunning when no MySQL pod runs', () => {
    const g = healthy({ pods: [0, 1, 2].map((i) => pod(i, { running: false })), servers: [] });
    assert.equal(brief(decideStatus(g).status, 'FailoverInProgress'), 'False ClusterNotRunning');
  });
});
