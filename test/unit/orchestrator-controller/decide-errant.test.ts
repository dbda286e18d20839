// Errant transactions, every pass: each replica's GTID history against the master's, the node
// condition and the healthy label it decides.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideErrant, decideRebuild } from '../../../src/controllers/orchestrator-controller/decide-errant.ts';
import { decideLabels } from '../../../src/controllers/orchestrator-controller/decide-labels.ts';
import { decideStatus } from '../../../src/controllers/orchestrator-controller/decide-status.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import {
  analysis,
  fqdn,
  gtids,
  healthy,
  instance,
  masterServer,
  mysqlCluster,
  node,
  pod,
  podName,
  reachable,
  replicaServer,
} from './builders.ts';

function conditionOf(g: Gathered, ordinal: number): string | undefined {
  return decideStatus(g)
    .status.nodes.find((n) => n.name === fqdn(ordinal))
    ?.conditions?.find((c) => c.type === 'ErrantTransactions')?.status;
}

function healthyLabel(g: Gathered, ordinal: number): string {
  const patch = decideLabels(g, decideStatus(g).status.nodes).patches.find((p) => p.pod === podName(ordinal));
  return patch?.labels.healthy ?? 'unchanged';
}

// Pod 0 (server 100) the master at 0-100-60; pod 2 (server 102) wrote 0-102-51 itself with
// sql_log_bin=1. Its domain position (51) is below the master's: only the per-server_id view sees it.
const localWrite = { 0: '0-100-60', 1: '0-100-60', 2: '0-100-50,0-102-51' };

describe('decideErrant', () => {
  it("finds a replica's own write the master lacks, names it, and leaves the others clean", () => {
    const g = healthy({
      pods: [0, 1, 2].map((i) => pod(i, { role: i === 0 ? 'master' : 'replica', healthy: 'yes' })),
      gtids: gtids(localWrite, 0),
    });
    const d = decideErrant(g);
    assert.deepEqual(
      d.errant.map((e) => `${e.pod} ${e.gtids.join()}`),
      [`${podName(2)} 0-102-51`],
    );
    assert.match(d.errant[0]!.message, /my-db-mysql-2 holds transactions the master my-db-mysql-0 lacks: 0-102-51/);
    assert.deepEqual([conditionOf(g, 0), conditionOf(g, 1), conditionOf(g, 2)], ['False', 'False', 'True']);
    assert.equal(healthyLabel(g, 2), 'no');
    assert.equal(healthyLabel(g, 1), 'unchanged');
  });

  it("asks for the master's history to be read again when it was not read after the replica's", () => {
    const d = decideErrant(healthy({ gtids: gtids(localWrite) }));
    assert.equal(d.confirm, podName(0));
    assert.deepEqual(d.errant, []);
    // A clean cluster never asks.
    assert.equal(decideErrant(healthy({ gtids: gtids({ 0: '0-100-60', 1: '0-100-59', 2: '0-100-60' }) })).confirm, undefined);
  });

  it('holds the cached verdict while it cannot compare: failover, no master, histories not read', () => {
    const flagged = mysqlCluster(
      {},
      {
        readyNodes: 3,
        nodes: [{ name: fqdn(2), conditions: [{ type: 'ErrantTransactions', status: 'True' }] }],
      },
    );
    const failing = healthy({
      cluster: flagged,
      gtids: gtids({ 0: '0-100-60', 1: '0-100-60', 2: '0-100-60' }, 0),
      orchestrator: { ...healthy().orchestrator, analysis: [analysis(0, 'DeadMaster')] } as Gathered['orchestrator'],
    });
    const d = decideErrant(failing);
    assert.match(d.unchecked ?? '', /failover is in progress/);
    assert.equal(d.status.get(fqdn(2)), 'True');
    assert.equal(decideErrant(healthy({ cluster: flagged })).status.get(fqdn(2)), 'True');
    // Compared clean once it can: the condition turns False.
    assert.equal(conditionOf(healthy({ cluster: flagged, gtids: gtids({ 0: '0-100-60', 1: '0-100-60', 2: '0-100-60' }, 0) }), 2), 'False');
  });

  it("adds no condition before a node was ever compared (the anchor's four only)", () => {
    assert.equal(conditionOf(healthy(), 1), undefined);
  });

  it("counts the master's clone position as its history", () => {
    // Pod 1 was cloned at 0-100-40, promoted, wrote 0-101-41..70: its binlog names server 101 only.
    const instances = [instance(0, 1), instance(1, null), instance(2, 1)];
    const g = healthy({
      servers: [node(0, replicaServer(1)), node(1, masterServer()), node(2, replicaServer(1))],
      orchestrator: reachable({ master: instances[1]!, instances }),
      gtids: gtids({ 0: '0-100-40,0-101-70', 1: { history: '0-101-70', base: '0-100-40' }, 2: '0-100-41,0-101-70' }, 1),
    });
    const d = decideErrant(g);
    assert.equal(d.unchecked, undefined);
    // Pod 0's 0-100-40 is the master's by its clone; pod 2's 0-100-41 is past it.
    assert.deepEqual(
      d.errant.map((e) => `${e.pod} ${e.gtids.join()}`),
      [`${podName(2)} 0-100-41`],
    );
  });
});

describe('decideRebuild (spec.rebuildErrantReplicas)', () => {
  const labelled = (o: { running2?: boolean } = {}) =>
    [0, 1, 2].map((i) => pod(i, { role: i === 0 ? 'master' : 'replica', healthy: 'yes', running: i === 2 ? (o.running2 ?? true) : true }));
  const rebuild = (over: Partial<Gathered>) => {
    const g = healthy({ pods: labelled(), gtids: gtids(localWrite, 0), ...over });
    return decideRebuild(g, decideErrant(g));
  };

  it('does nothing unless the cluster opts in', () => {
    assert.equal(rebuild({}).kind, 'none');
    assert.equal(rebuild({ cluster: mysqlCluster({ rebuildErrantReplicas: false }) }).kind, 'none');
  });

  it("deletes the errant replica's data claim and pod, naming what is discarded", () => {
    const d = rebuild({ cluster: mysqlCluster({ rebuildErrantReplicas: true }) });
    assert.equal(d.kind, 'rebuild');
    assert.ok(d.kind === 'rebuild');
    assert.deepEqual([d.pod, d.claim], [podName(2), `data-${podName(2)}`]);
    assert.match(d.message, /discarding the transactions the master my-db-mysql-0 lacks: 0-102-51/);
  });

  it('holds while a pod does not run, while the master is not labelled, and for pod 0', () => {
    const on = mysqlCluster({ rebuildErrantReplicas: true });
    const down = rebuild({ cluster: on, pods: labelled({ running2: false }), gtids: gtids({ ...localWrite, 1: '0-100-60,0-101-61' }, 0) });
    assert.equal(down.kind, 'hold');
    assert.match(down.kind === 'hold' ? down.message : '', /my-db-mysql-2 is not running/);
    const unlabelled = rebuild({ cluster: on, pods: [0, 1, 2].map((i) => pod(i)) });
    assert.match(unlabelled.kind === 'hold' ? unlabelled.message : '', /master is not labelled/);
    // Pod 0 errant under master pod 1.
    const instances = [instance(0, 1), instance(1, null), instance(2, 1)];
    const pod0 = rebuild({
      cluster: on,
      pods: [0, 1, 2].map((i) => pod(i, { role: i === 1 ? 'master' : 'replica', healthy: 'yes' })),
      servers: [node(0, replicaServer(1)), node(1, masterServer()), node(2, replicaServer(1))],
      orchestrator: reachable({ master: instances[1]!, instances }),
      gtids: gtids({ 0: '0-100-61', 1: '0-100-60,0-101-70', 2: '0-101-70' }, 1),
    });
    assert.match(pod0.kind === 'hold' ? pod0.message : '', /pod 0 is never rebuilt/);
  });

  it('never acts on a verdict carried from the cached status', () => {
    const flagged = mysqlCluster(
      { rebuildErrantReplicas: true },
      { readyNodes: 3, nodes: [{ name: fqdn(2), conditions: [{ type: 'ErrantTransactions', status: 'True' }] }] },
    );
    assert.equal(rebuild({ cluster: flagged, gtids: undefined }).kind, 'none');
  });
});
