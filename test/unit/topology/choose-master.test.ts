import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseMaster, type MasterChoice } from '../../../src/topology/index.ts';
import { fqdn, master, node, orchestrator, podName, replicating, server, unreachable } from './builders.ts';

function chosen(c: MasterChoice): string {
  return c.kind === 'master' ? `${c.node.pod} by ${c.by}` : `unknown:${c.reason}`;
}

test("Orchestrator's view wins over pod 0", () => {
  const nodes = [node(0, server({ replication: null })), node(1, server()), node(2, server())];
  assert.equal(chosen(chooseMaster(nodes, orchestrator(fqdn(1)))), `${podName(1)} by orchestrator`);
});

test("Orchestrator's names match with a port, a trailing dot or another case", () => {
  const nodes = [node(0, server()), node(1, server())];
  assert.equal(chosen(chooseMaster(nodes, orchestrator(`${fqdn(1).toUpperCase()}.:3306`))), `${podName(1)} by orchestrator`);
});

test("a master in Orchestrator's view that is a replica is stale", () => {
  const nodes = [node(0, master()), node(1, server({ replication: replicating(0) }))];
  assert.equal(chosen(chooseMaster(nodes, orchestrator(fqdn(1)))), 'unknown:MasterViewStale');
});

test("a master in Orchestrator's view that is not a pod is stale", () => {
  assert.equal(chosen(chooseMaster([node(0, master())], orchestrator('gone-mysql-9.mysql.default'))), 'unknown:MasterViewStale');
});

test("several masters in Orchestrator's view are a conflict", () => {
  assert.equal(chosen(chooseMaster([node(0, master()), node(1, master())], orchestrator(fqdn(0), fqdn(1)))), 'unknown:MasterConflict');
});

test('without Orchestrator, the one writable non-replica is the master', () => {
  const nodes = [node(0, server({ replication: replicating(1) })), node(1, master()), node(2, server())];
  assert.equal(chosen(chooseMaster(nodes, undefined)), `${podName(1)} by writable`);
});

test('two writable non-replicas are a conflict, not a guess', () => {
  assert.equal(chosen(chooseMaster([node(0, master()), node(1, master())], undefined)), 'unknown:MasterConflict');
});

test('a restarted (read-only) master is found as the source its replicas share', () => {
  const nodes = [node(0, server()), node(1, server({ replication: replicating(0) })), node(2, server({ replication: replicating(0) }))];
  assert.equal(chosen(chooseMaster(nodes, undefined)), `${podName(0)} by replicaSource`);
});

test('a shared source that is unreachable is still the master (the caller waits for it)', () => {
  const nodes = [node(0, unreachable()), node(1, server({ replication: replicating(0) })), node(2, server())];
  assert.equal(chosen(chooseMaster(nodes, undefined)), `${podName(0)} by replicaSource`);
});

test('replicas with different sources leave the master unknown', () => {
  const nodes = [node(0, server()), node(1, server({ replication: replicating(0) })), node(2, server({ replication: replicating(1) }))];
  assert.equal(chosen(chooseMaster(nodes, undefined)), 'unknown:NoMaster');
});

test('a new cluster (nobody replicates, nobody writable) takes pod 0', () => {
  const nodes = [node(1, server()), node(0, server()), node(2, null)];
  assert.equal(chosen(chooseMaster(nodes, undefined)), `${podName(0)} by newCluster`);
});

test('a new cluster without pod 0 has no master', () => {
  assert.equal(chosen(chooseMaster([node(1, server())], undefined)), 'unknown:NoMaster');
});

test('a replica naming its source by FQDN (as in a cluster) points at that pod', () => {
  const byName = server({ replication: replicating(0, { sourceHost: fqdn(0), sourcePort: 3306 }) });
  assert.equal(chosen(chooseMaster([node(0, server()), node(1, byName)], undefined)), `${podName(0)} by replicaSource`);
});

test('an Orchestrator view without a master leaves the choice to the servers, as no view does', () => {
  const nodes = [node(0, server({ replication: replicating(1) })), node(1, master())];
  assert.equal(chosen(chooseMaster(nodes, orchestrator())), `${podName(1)} by writable`);
});
