import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideReadOnly, type ReadOnlyDecision } from '../../../src/controllers/orchestrator-controller/decide-read-only.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import {
  analysis,
  CLUSTER,
  fqdn,
  healthy,
  instance,
  master,
  mysqlCluster,
  node,
  NOW,
  NS,
  podName,
  reachable,
  recovery,
  replicaServer,
  replicating,
  server,
  unreachable,
} from './builders.ts';

function changes(d: ReadOnlyDecision): string[] {
  assert.equal(d.kind, 'change');
  return d.kind === 'change' ? d.changes.map((c) => `${c.key.host} ${c.readOnly ? 'read-only' : 'writable'}`) : [];
}

describe('decideReadOnly', () => {
  it('changes nothing on a healthy cluster', () => {
    assert.deepEqual(changes(decideReadOnly(healthy())), []);
  });

  // Issue 21: the state of a graceful takeover between its freeze and its recovery (the master
  // read-only while it ran, configured long ago, replicating from no one; Orchestrator still names
  // it). It used to be made writable again.
  it('never undoes a freeze: a master read-only while it ran stays so, with MasterFrozen, and the other changes go ahead', () => {
    const servers = [
      node(0, master({ readOnly: true })),
      node(1, server({ configured: true, readOnly: false, replication: replicating(0) })),
      node(2, replicaServer(0)),
    ];
    const d = decideReadOnly(healthy({ servers }));
    assert.deepEqual(changes(d), [`${fqdn(1)} read-only`]);
    assert.equal(d.kind === 'change' && d.held?.reason, 'MasterFrozen');
    assert.match(
      d.kind === 'change' ? (d.held?.message ?? '') : '',
      /my-db-mysql-0 is Orchestrator's master and read-only, but not since its start/,
    );
  });

  it('makes a master read-only since its start (bootstrap) writable last, after a writable replica is made read-only', () => {
    const servers = [
      node(0, master({ readOnly: true, configured: false })),
      node(1, server({ configured: true, readOnly: false, replication: replicating(0) })),
      node(2, replicaServer(0)),
    ];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers }))), [`${fqdn(1)} read-only`, `${fqdn(0)} writable`]);
  });

  it('makes a master writable after a promotion Orchestrator reports, not after an acknowledged one', () => {
    const servers = [node(0, master({ readOnly: true })), node(1, replicaServer(0)), node(2, replicaServer(0))];
    const instances = [instance(0, null, { readOnly: true }), instance(1, 0), instance(2, 0)];
    const promoted = reachable({ master: instances[0]!, instances, recoveries: [recovery(7, 1, 0)] });
    assert.deepEqual(changes(decideReadOnly(healthy({ servers, orchestrator: promoted }))), [`${fqdn(0)} writable`]);
    const acked = reachable({ master: instances[0]!, instances, recoveries: [recovery(7, 1, 0, { acknowledged: true })] });
    assert.deepEqual(changes(decideReadOnly(healthy({ servers, orchestrator: acked }))), []);
    const other = reachable({ master: instances[0]!, instances, recoveries: [recovery(8, 0, 2), recovery(7, 1, 0)] });
    assert.deepEqual(changes(decideReadOnly(healthy({ servers, orchestrator: other }))), []);
  });

  it('makes nothing writable while a graceful takeover is signalled (PreGracefulTakeover), even a master read-only since its start', () => {
    const servers = [node(0, master({ readOnly: true, configured: false })), node(1, replicaServer(0)), node(2, replicaServer(0))];
    const hook = {
      process: 'PreGracefulTakeover' as const,
      clusterKey: `${NS}/${CLUSTER}`,
      failed: `${fqdn(0)}:3306`,
      successor: `${fqdn(1)}:3306`,
      at: NOW,
    };
    const d = decideReadOnly(healthy({ servers, hook }));
    assert.equal(d.kind === 'hold' && d.reason, 'FailoverInProgress');
    assert.match(
      d.kind === 'hold' ? d.message : '',
      /PreGracefulTakeover hook announced a takeover from my-db-mysql-0\.mysql\.default:3306 to my-db-mysql-1/,
    );
  });

  it('lifts its own spec.readOnly freeze once spec.readOnly is off', () => {
    const servers = [node(0, master({ readOnly: true })), node(1, replicaServer(0)), node(2, replicaServer(0))];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers, frozenBySpec: podName(0) }))), [`${fqdn(0)} writable`]);
  });

  it('makes every server read-only under spec.readOnly, the master too', () => {
    assert.deepEqual(changes(decideReadOnly(healthy({ cluster: mysqlCluster({ readOnly: true }) }))), [`${fqdn(0)} read-only`]);
  });

  it('makes the old master read-only when it comes back writable, alone in its own cluster', () => {
    const instances = [
      instance(0, null, { downtimed: true, readOnly: false, clusterName: `${fqdn(0)}:3306` }),
      instance(1, 2),
      instance(2, null, { readOnly: false }),
    ];
    const g = healthy({
      servers: [node(0, master()), node(1, replicaServer(2)), node(2, master())],
      orchestrator: reachable({
        master: instances[2]!,
        instances,
        analysis: [analysis(0, 'DeadMasterWithoutReplicas', { downtimed: true })],
      }),
    });
    assert.deepEqual(changes(decideReadOnly(g)), [`${fqdn(0)} read-only`]);
  });

  it('leaves alone servers Orchestrator did not check recently', () => {
    const instances = [instance(0, null, { recentlyChecked: false }), instance(1, 0, { lastCheckValid: false }), instance(2, 0)];
    const servers = [
      node(0, master({ readOnly: true })),
      node(1, server({ configured: true, readOnly: false, replication: replicating(0) })),
      node(2, replicaServer(0)),
    ];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers, orchestrator: reachable({ master: instances[0]!, instances }) }))), []);
  });

  it("does not make Orchestrator's master writable while its server replicates", () => {
    const servers = [node(0, replicaServer(1)), node(1, replicaServer(0)), node(2, replicaServer(0))];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers }))), []);
  });

  it('uses Orchestrator’s recent check when the server was not observed', () => {
    const instances = [instance(0, null), instance(1, 0, { readOnly: false }), instance(2, 0)];
    const g: Gathered = healthy({
      servers: [node(0, master()), node(1, unreachable()), node(2, replicaServer(0))],
      orchestrator: reachable({ master: instances[0]!, instances }),
    });
    assert.deepEqual(changes(decideReadOnly(g)), [`${fqdn(1)} read-only`]);
  });

  it('holds during a failover and while Orchestrator is unreachable', () => {
    const instances = [instance(0, null, { lastCheckValid: false }), instance(1, 0), instance(2, 0)];
    const failing = decideReadOnly(
      healthy({ orchestrator: reachable({ master: instances[0]!, instances, analysis: [analysis(0, 'DeadMaster')] }) }),
    );
    assert.equal(failing.kind === 'hold' && failing.reason, 'FailoverInProgress');
    const away = decideReadOnly(healthy({ orchestrator: { kind: 'unreachable', message: 'timeout of 10000ms exceeded' } }));
    assert.equal(away.kind === 'hold' && away.reason, 'OrchestratorUnreachable');
  });
});
