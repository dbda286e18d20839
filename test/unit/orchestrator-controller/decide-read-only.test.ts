import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideReadOnly, type ReadOnlyDecision } from '../../../src/controllers/orchestrator/decide-read-only.ts';
import type { Gathered } from '../../../src/controllers/orchestrator/gathered.ts';
import { analysis, fqdn, healthy, instance, master, mysqlCluster, node, reachable, replicaServer, replicating, server, unreachable } from './builders.ts';

function changes(d: ReadOnlyDecision): string[] {
  assert.equal(d.kind, 'change');
  return d.kind === 'change' ? d.changes.map((c) => `${c.key.host} ${c.readOnly ? 'read-only' : 'writable'}`) : [];
}

describe('decideReadOnly', () => {
  it('changes nothing on a healthy cluster', () => {
    assert.deepEqual(changes(decideReadOnly(healthy())), []);
  });

  it('makes the master writable last, after a writable replica is made read-only', () => {
    const servers = [node(0, master({ readOnly: true })), node(1, server({ configured: true, readOnly: false, replication: replicating(0) })), node(2, replicaServer(0))];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers }))), [`${fqdn(1)} read-only`, `${fqdn(0)} writable`]);
  });

  it('makes every server read-only under spec.readOnly, the master too', () => {
    assert.deepEqual(changes(decideReadOnly(healthy({ cluster: mysqlCluster({ readOnly: true }) }))), [`${fqdn(0)} read-only`]);
  });

  it('makes the old master read-only when it comes back writable, alone in its own cluster', () => {
    const instances = [instance(0, null, { downtimed: true, readOnly: false, clusterName: `${fqdn(0)}:3306` }), instance(1, 2), instance(2, null, { readOnly: false })];
    const g = healthy({
      servers: [node(0, master()), node(1, replicaServer(2)), node(2, master())],
      orchestrator: reachable({ master: instances[2]!, instances, analysis: [analysis(0, 'DeadMasterWithoutReplicas', { downtimed: true })] }),
    });
    assert.deepEqual(changes(decideReadOnly(g)), [`${fqdn(0)} read-only`]);
  });

  it('leaves alone servers Orchestrator did not check recently', () => {
    const instances = [instance(0, null, { recentlyChecked: false }), instance(1, 0, { lastCheckValid: false }), instance(2, 0)];
    const servers = [node(0, master({ readOnly: true })), node(1, server({ configured: true, readOnly: false, replication: replicating(0) })), node(2, replicaServer(0))];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers, orchestrator: reachable({ master: instances[0]!, instances }) }))), []);
  });

  it("does not make Orchestrator's master writable while its server replicates", () => {
    const servers = [node(0, replicaServer(1)), node(1, replicaServer(0)), node(2, replicaServer(0))];
    assert.deepEqual(changes(decideReadOnly(healthy({ servers }))), []);
  });

  it('uses Orchestrator’s recent check when the server was not observed', () => {
    const instances = [instance(0, null), instance(1, 0, { readOnly: false }), instance(2, 0)];
    const g: Gathered = healthy({ servers: [node(0, master()), node(1, unreachable()), node(2, replicaServer(0))], orchestrator: reachable({ master: instances[0]!, instances }) });
    assert.deepEqual(changes(decideReadOnly(g)), [`${fqdn(1)} read-only`]);
  });

  it('holds during a failover and while Orchestrator is unreachable', () => {
    const instances = [instance(0, null, { lastCheckValid: false }), instance(1, 0), instance(2, 0)];
    const failing = decideReadOnly(healthy({ orchestrator: reachable({ master: instances[0]!, instances, analysis: [analysis(0, 'DeadMaster')] }) }));
    assert.equal(failing.kind === 'hold' && failing.reason, 'FailoverInProgress');
    const away = decideReadOnly(healthy({ orchestrator: { kind: 'unreachable', message: 'timeout of 10000ms exceeded' } }));
    assert.equal(away.kind === 'hold' && away.reason, 'OrchestratorUnreachable');
  });
});
